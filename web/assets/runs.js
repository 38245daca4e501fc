// #/runs: the runs on the bus. #/run/<id>: one run, live: its terminal
// (xterm.js, fed from the terminal event stream), its entries as they are
// captured, its state, and, unless the server is read-only, a prompt box,
// the keys typed into the terminal, and a Stop button.

import { abForm, abTable } from './ab.js';
import { chainForm } from './chain.js';
import { get, post, info, report, showError, url } from './api.js';
import { h, clear, fmtDate, fmtDuration, durationMs, fmtInt, sessionLink } from './dom.js';
import { EntryRenderer } from './entries.js';

const POLL = 5000;
const DONE = new Set(['exited', 'failed', 'interrupted', 'stopped']);

function runPath(id, rest) {
  return '/api/v1/runs/' + encodeURIComponent(id) + (rest || '');
}

function stateBadge(state) {
  const s = String(state || 'unknown');
  return h('span', { class: 'badge state state-' + s.replace(/[^a-z_]/gi, ''), text: s });
}

export function mountList(view) {
  let alive = true;
  let timer = 0;
  const ctl = new AbortController();
  const status = h('div', { class: 'muted', text: 'Loading…' });
  const table = h('table', { class: 'data-table', id: 'runs-list' });
  const abBox = h('section', { class: 'ab-box' });
  view.append(h('h1', { text: 'Runs' }), status, table, h('h2', { text: 'A/B runs' }), abBox);
  abTable(ctl.signal).then((t) => { if (alive) abBox.appendChild(t); }).catch((e) => { if (alive) report(e); });
  info().then((i) => {
    if (alive && i.runs && !i.readOnly) {
      abBox.parentNode.insertBefore(abForm(i.clis), abBox);
      view.append(h('h2', { text: 'Chains' }), chainForm());
    }
  }).catch(() => {});

  async function load() {
    clearTimeout(timer);
    try {
      const d = await get('/api/v1/runs', null, ctl.signal);
      if (!alive) return;
      draw(d.runs || []);
      status.textContent = `${d.runs.length} run${d.runs.length === 1 ? '' : 's'} · updated ${new Date().toLocaleTimeString()}`;
    } catch (e) {
      if (!alive) return;
      if (e.status === 503) {
        status.textContent = e.message.replace(/^GET \S+: /, '').replace(/^./, (c) => c.toUpperCase()) + '. Start the daemon (stead serve) to watch live runs.';
        clear(table);
        return; // no polling: nothing will change
      }
      status.textContent = '';
      report(e);
    }
    if (alive && document.visibilityState === 'visible') timer = setTimeout(load, POLL);
  }

  function draw(runs) {
    clear(table);
    table.appendChild(h('thead', null, h('tr', null,
      ['Run', 'CLI', 'State', 'Directory', 'Host', 'Started', 'Duration', 'Entries', 'Reason'].map((c) => h('th', { text: c })))));
    const tb = h('tbody');
    for (const r of runs) {
      const tr = h('tr', { class: 'run-row', data: { run: r.id } },
        h('td', null, h('a', { href: '#/run/' + encodeURIComponent(r.id), text: r.id })),
        h('td', null, h('span', { class: 'cli cli-' + r.cli, text: r.cli })),
        h('td', null, stateBadge(r.state)),
        h('td', { class: 'path', text: r.dir || '', title: r.dir || '' }),
        h('td', { text: r.host || '' }),
        h('td', { text: fmtDate(r.started) }),
        h('td', { text: fmtDuration(durationMs(r.started, r.ended || (DONE.has(r.state) ? null : new Date().toISOString()))) }),
        h('td', { class: 'num', text: fmtInt(r.entries) }),
        h('td', { class: 'muted', text: [r.reason, r.exitCode !== undefined && r.exitCode !== null ? `exit ${r.exitCode}` : ''].filter(Boolean).join(' · ') }));
      tr.addEventListener('click', (ev) => { if (!ev.target.closest('a')) location.hash = '#/run/' + encodeURIComponent(r.id); });
      tb.appendChild(tr);
    }
    if (!runs.length) tb.appendChild(h('tr', null, h('td', { class: 'muted', attrs: { colspan: '9' }, text: 'No runs yet: start one with stead run or stead session resume.' })));
    table.appendChild(tb);
  }

  const onVisible = () => { if (document.visibilityState === 'visible') load(); else clearTimeout(timer); };
  document.addEventListener('visibilitychange', onVisible);
  load();
  return () => {
    alive = false;
    ctl.abort();
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', onVisible);
  };
}

// xterm.js's DOM renderer keeps its theme and cell sizes in two <style>
// elements it makes when the terminal opens; the page's
// Content-Security-Policy refuses inline styles (and says so in the
// console). openTerminal has it make inert <template> elements instead,
// whose text mirrorStyles applies through constructed style sheets,
// which the policy allows, following every change xterm makes to them.
function openTerminal(term, el) {
  const create = Document.prototype.createElement;
  document.createElement = function createElement(tag, opts) {
    if (String(tag).toLowerCase() === 'style') {
      const t = create.call(this, 'template');
      t.className = 'xterm-css';
      return t;
    }
    return create.call(this, tag, opts);
  };
  try {
    term.open(el);
  } finally {
    delete document.createElement;
  }
}

function mirrorStyles(root) {
  const sheets = new Map(); // element → {sheet, text}
  const sync = () => {
    let changed = false;
    for (const el of root.querySelectorAll('template.xterm-css')) {
      let it = sheets.get(el);
      if (!it) {
        it = { sheet: new CSSStyleSheet(), text: null };
        sheets.set(el, it);
        changed = true;
      }
      if (it.text !== el.textContent) {
        it.text = el.textContent;
        try { it.sheet.replaceSync(it.text); } catch (_) { /* keep the last */ }
      }
    }
    for (const [el] of sheets) if (!root.contains(el)) { sheets.delete(el); changed = true; }
    if (changed) {
      const mine = [...sheets.values()].map((x) => x.sheet);
      for (const s of mine) s.xtermMirror = true;
      document.adoptedStyleSheets = [...document.adoptedStyleSheets.filter((s) => !s.xtermMirror), ...mine];
    }
  };
  const mo = new MutationObserver(sync);
  mo.observe(root, { subtree: true, childList: true, characterData: true });
  return {
    sync,
    stop() {
      mo.disconnect();
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !s.xtermMirror);
    },
  };
}

function decode(b64) {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function themeFor(dark) {
  return dark
    ? { background: '#14161a', foreground: '#d8dde3', cursor: '#d8dde3', selectionBackground: '#3a4a66' }
    : { background: '#fbfbfc', foreground: '#1d2329', cursor: '#1d2329', selectionBackground: '#bcd3f5', cursorAccent: '#fbfbfc',
      black: '#1d2329', white: '#8a9199', brightWhite: '#5c636b', yellow: '#9a6b00', brightYellow: '#7a5500' };
}

export function mountRun(view, route) {
  const id = route.arg;
  const ctl = new AbortController();
  let alive = true;
  let readOnly = true;
  let done = false;
  let rec = null;
  const cleanups = [];

  const title = h('h1', null, 'Run ', h('span', { class: 'mono', text: id }), ' ');
  const badge = h('span', { id: 'run-state' }, stateBadge('…'));
  title.appendChild(badge);
  const detail = h('div', { class: 'muted run-detail' });
  const figs = h('div', { class: 'figures' });
  const conn = h('span', { class: 'muted conn' });
  const stopBtn = h('button', { type: 'button', id: 'run-stop', class: 'danger', text: 'Stop', title: 'make the CLI exit', hidden: true });
  const promptBox = h('textarea', { id: 'run-prompt', rows: 2, placeholder: 'A prompt for the CLI (Enter sends it, Shift+Enter a new line)' });
  const sendBtn = h('button', { type: 'submit', class: 'primary', text: 'Send' });
  const form = h('form', { id: 'run-input', class: 'run-input', hidden: true }, promptBox, sendBtn);
  const termBox = h('div', { id: 'terminal', class: 'term-box' });
  // A run's terminal starts at 200×50 (the supervisor's size); the page
  // may size it to another, for the CLI to draw for.
  const sizeSel = h('select', { id: 'run-size', title: 'the size of the run\'s terminal (the CLI redraws for it)' },
    ['200×50', '160×45', '120×36', '80×24'].map((v) => h('option', { value: v, text: v })));
  const entriesBox = h('div', { id: 'run-entries', class: 'run-entries' });
  const entriesStatus = h('div', { class: 'muted page-status', text: 'Waiting for entries…' });
  view.append(
    h('header', { class: 'run-header' }, h('div', { class: 'title-row' }, title, h('span', { class: 'spacer' }), conn, stopBtn), detail, figs),
    h('div', { class: 'run-split' },
      h('section', { class: 'run-term' }, h('h2', null, 'Terminal ', sizeSel), termBox, form),
      h('section', { class: 'run-side' }, h('h2', { text: 'Entries' }), entriesBox, entriesStatus)));

  // The run's record.
  async function record() {
    try {
      rec = await get(runPath(id), null, ctl.signal);
      if (!alive) return false;
      drawRecord();
      return true;
    } catch (e) {
      if (alive) report(e);
      return false;
    }
  }
  function drawRecord() {
    if (!rec) return;
    renderer.cli = rec.cli;
    clear(badge).appendChild(stateBadge(rec.state));
    clear(figs);
    const fig = (label, v) => figs.appendChild(h('div', { class: 'fig' }, h('span', { class: 'label', text: label }), v instanceof Node ? v : h('span', { text: v })));
    fig('CLI', h('span', { class: 'cli cli-' + rec.cli, text: rec.cli }));
    if (rec.dir) fig('Directory', h('span', { class: 'path', text: rec.dir }));
    if (rec.host) fig('Host', rec.host);
    fig('Started', fmtDate(rec.started, true));
    if (rec.ended) fig('Ended', fmtDate(rec.ended, true));
    fig('Duration', fmtDuration(durationMs(rec.started, rec.ended || new Date().toISOString())));
    if (rec.sessionId) fig('Session', sessionLink(rec.cli + ':' + rec.sessionId, rec.sessionId));
    if (rec.exitCode !== undefined && rec.exitCode !== null) fig('Exit code', String(rec.exitCode));
    if (rec.reason) fig('Reason', rec.reason);
    setDone(DONE.has(rec.state));
  }
  function setDone(d) {
    done = d;
    const show = !readOnly && !done;
    form.hidden = !show;
    stopBtn.hidden = !show;
    if (term) term.options.disableStdin = !show;
  }

  // The terminal.
  let term = null;
  if (typeof window.Terminal === 'function') {
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    term = new window.Terminal({
      cols: 200, rows: 50, convertEol: false, scrollback: 5000, disableStdin: true, cursorBlink: false,
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace', fontSize: 13,
      theme: themeFor(dark),
    });
    const mirror = mirrorStyles(termBox);
    openTerminal(term, termBox);
    mirror.sync();
    cleanups.push(() => term.dispose(), () => mirror.stop());
    sizeSel.addEventListener('change', async () => {
      const [cols, rows] = sizeSel.value.split('×').map(Number);
      term.resize(cols, rows);
      if (readOnly || done) return; // the page's view only
      try {
        await post(runPath(id, '/resize'), { rows, cols }, ctl.signal);
      } catch (e) {
        if (alive) report(e);
      }
    });
  } else {
    termBox.appendChild(h('p', { class: 'muted', text: 'The terminal could not be loaded (xterm.js).' }));
  }

  // Keys typed into the terminal go to the run, in order, in batches.
  let pending = '';
  let inflight = false;
  async function flush() {
    if (inflight || !pending) return;
    const data = pending;
    pending = '';
    inflight = true;
    try {
      await post(runPath(id, '/input'), { data }, ctl.signal);
    } catch (e) {
      if (alive) report(e);
    } finally {
      inflight = false;
    }
    if (alive) flush();
  }
  if (term) {
    const sub = term.onData((d) => {
      if (readOnly || done) return;
      pending += d;
      flush();
    });
    cleanups.push(() => sub.dispose());
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const prompt = promptBox.value;
    if (!prompt.trim()) return;
    sendBtn.disabled = true;
    sendBtn.textContent = 'Sending…';
    try {
      await post(runPath(id, '/input'), { prompt }, ctl.signal);
      if (alive) promptBox.value = '';
    } catch (e) {
      if (alive) report(e);
    } finally {
      sendBtn.disabled = false;
      sendBtn.textContent = 'Send';
    }
  });
  promptBox.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      form.requestSubmit();
    }
  });
  // One click stops the run (a dialog would block the page's live
  // streams, and a script driving it).
  stopBtn.addEventListener('click', async () => {
    stopBtn.disabled = true;
    stopBtn.textContent = 'Stopping…';
    try {
      rec = await post(runPath(id, '/stop'), {}, ctl.signal);
      if (alive) drawRecord();
    } catch (e) {
      if (alive) report(e);
    } finally {
      stopBtn.disabled = false;
      stopBtn.textContent = 'Stop';
    }
  });

  // The entries and states, live.
  const renderer = new EntryRenderer({ cli: '' });
  let count = 0;
  function addEntry(e) {
    const atBottom = entriesBox.scrollTop + entriesBox.clientHeight >= entriesBox.scrollHeight - 40;
    const el = renderer.render(e, count++);
    if (el) {
      // When it was shown, beside when the CLI wrote it: how long a
      // record takes to reach an open page (measured by e2e/TestControlRoom).
      el.dataset.shownAt = String(Date.now());
      if (e.timestamp) el.dataset.ts = e.timestamp;
      entriesBox.appendChild(el);
    }
    entriesStatus.textContent = `${fmtInt(count)} entr${count === 1 ? 'y' : 'ies'}`;
    if (atBottom) entriesBox.scrollTop = entriesBox.scrollHeight;
  }
  // An "entry" event is a universal entry ("update": a change to one
  // already sent). A session.Event ({entries, updates}) is taken too.
  function onEntry(ev) {
    let d;
    try { d = JSON.parse(ev.data); } catch (_) { return; }
    if (!d || typeof d !== 'object') return;
    if (Array.isArray(d.entries) || Array.isArray(d.updates)) {
      for (const e of d.entries || []) addEntry(e);
      for (const u of d.updates || []) renderer.update(u);
    } else if (d.type) {
      addEntry(d);
    }
  }
  function onUpdate(ev) {
    let u;
    try { u = JSON.parse(ev.data); } catch (_) { return; }
    if (u && u.entryId) renderer.update(u);
  }
  let lastState = '';
  function onStatus(ev) {
    let st;
    try { st = JSON.parse(ev.data); } catch (_) { return; }
    if (!st || !st.state) return;
    clear(badge).appendChild(stateBadge(st.state));
    detail.textContent = st.detail ? st.detail : '';
    if (st.state !== lastState) {
      lastState = st.state;
      setDone(DONE.has(st.state));
      record(); // its end, exit code and reason
    }
  }

  function stream(path, handlers, label) {
    const es = new EventSource(url(path), { withCredentials: false });
    for (const [name, fn] of Object.entries(handlers)) es.addEventListener(name, fn);
    es.addEventListener('open', () => { conn.textContent = ''; });
    es.addEventListener('error', (ev) => {
      if (!alive) return;
      if (ev.data) { // the server's own error event: said, and the stream goes on
        let msg = ev.data;
        try { msg = JSON.parse(ev.data); } catch (_) { /* as it is */ }
        showError(`${label}: ${msg}`);
        return;
      }
      if (es.readyState === EventSource.CLOSED) {
        conn.textContent = `${label}: disconnected`;
        record(); // says why (not signed in, no such run)
      } else {
        conn.textContent = `${label}: reconnecting…`;
      }
    });
    cleanups.push(() => es.close());
    return es;
  }

  info().then((i) => {
    if (!alive) return;
    readOnly = !!i.readOnly;
    setDone(done);
  }).catch(report);
  // The streams open once the run is known to be there.
  record().then((ok) => {
    if (!alive) return;
    if (!ok) {
      entriesStatus.textContent = 'The run could not be read.';
      return;
    }
    stream(runPath(id, '/events'), { entry: onEntry, update: onUpdate, status: onStatus }, 'entries');
    if (term) stream(runPath(id, '/events') + '?terminal=true', { terminal: (ev) => {
      try { term.write(decode(JSON.parse(ev.data).data)); } catch (_) { /* a bad message: skip it */ }
    } }, 'terminal');
  });

  return () => {
    alive = false;
    ctl.abort();
    for (const f of cleanups.reverse()) { try { f(); } catch (_) { /* going anyway */ } }
  };
}
