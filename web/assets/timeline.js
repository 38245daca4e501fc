// #/session/<ref>[?at=<entry id>]: one session's timeline, a page of
// entries at a time: more are fetched when the reader nears the bottom
// (or the top, when it opened in the middle), so that a session of
// 100,000 entries opens as fast as a short one.

import { entries as fetchEntries, sessionRow, report, info, post, onSessionsChanged, onSessionChanged } from './api.js';
import {
  h, clear, fmtDate, fmtDuration, durationMs, fmtTokens, fmtCost, fmtInt, fmtUsage, usageTotal, sessionLink,
} from './dom.js';
import { EntryRenderer } from './entries.js';

const PAGE = 200;

export function mount(view, route) {
  const ref = route.arg;
  const at = route.params.get('at') || '';
  const ctl = new AbortController();
  let alive = true;
  let renderer = null;
  let first = 0; // the index of the first entry shown
  let end = 0; // one past the last
  let total = 0;
  let busyDown = false;
  let busyUp = false;
  let gen = 0; // bumped when the list is opened anew: pages of an older one are dropped
  let cli = ref.slice(0, Math.max(0, ref.indexOf(':')));
  let canRun = false; // the server runs CLIs and may change things
  let forkAt = null; // the entry a run would start after

  const header = h('header', { class: 'session-header' }, h('h1', { class: 'title', text: 'Loading…' }));
  const position = h('span', { class: 'muted position' });
  const gotoInput = h('input', { type: 'number', min: '1', id: 'goto', placeholder: 'entry #', title: 'go to the entry at this position' });
  const gotoForm = h('form', { class: 'goto' }, gotoInput);
  const startBtn = h('button', { type: 'button', text: '⇤ Start' });
  const endBtn = h('button', { type: 'button', text: 'End ⇥' });
  const bar = h('div', { class: 'timeline-bar' }, position, h('span', { class: 'spacer' }), startBtn, endBtn, gotoForm);
  const topStatus = h('div', { class: 'page-status top', hidden: true });
  const list = h('div', { class: 'entries' });
  const bottomStatus = h('div', { class: 'page-status bottom', text: 'Loading…' });
  const tl = h('div', { id: 'timeline', data: { ref } }, topStatus, list, bottomStatus);
  const resume = h('div', { class: 'resume-box', hidden: true });
  view.append(header, resume, bar, tl);

  const raw = async (e, index) => {
    const d = await fetchEntries(ref, { offset: index, limit: 1, native: 'true' }, ctl.signal);
    const got = d.entries && d.entries[0];
    if (!got) return null;
    if (got.id !== e.id) throw new Error('the session changed since it was shown: reload it');
    return got.native || null;
  };

  const whole = async (e, index) => {
    const d = await fetchEntries(ref, { offset: index, limit: 1, full: 'true' }, ctl.signal);
    const got = d.entries && d.entries[0];
    if (!got || got.id !== e.id) throw new Error('the session changed since it was shown: reload it');
    return got;
  };

  function reset() {
    renderer = new EntryRenderer({ raw, whole, cli, fork: canRun ? forkAfter : undefined });
    clear(list);
  }

  function place(d, where) {
    const frag = document.createDocumentFragment();
    d.entries.forEach((e, k) => {
      if (d.costs && d.costs[e.id] !== undefined) e.cost = d.costs[e.id];
      const el = renderer.render(e, d.offset + k);
      if (el) frag.appendChild(el);
    });
    if (where === 'top') list.insertBefore(frag, list.firstChild);
    else list.appendChild(frag);
  }

  // A large session's first page comes before its end was read: its
  // total is not known (Infinity) until a later page says it.
  const known = () => Number.isFinite(total);
  function status() {
    total = Math.max(total, end);
    const fe = document.getElementById('fig-entries');
    if (fe && known()) fe.textContent = fmtInt(total);
    position.textContent = total === 0 ? 'No entries.'
      : `Entries ${fmtInt(first + 1)}–${fmtInt(end)} of ${known() ? fmtInt(total) : 'more'}`;
    topStatus.hidden = first === 0;
    topStatus.textContent = first === 0 ? '' : `${fmtInt(first)} earlier entries: scroll up to load them`;
    bottomStatus.textContent = end >= total ? (total ? 'End of the session.' : 'This session has no entries.')
      : known() ? `${fmtInt(total - end)} more entries: scroll down to load them` : 'More entries: scroll down to load them';
    startBtn.disabled = first === 0 && total > 0 && view.scrollTop === 0;
  }

  async function open(query, then) {
    const g = ++gen;
    busyDown = busyUp = true;
    bottomStatus.textContent = 'Loading…';
    try {
      const [d, i] = await Promise.all([fetchEntries(ref, { limit: PAGE, ...query }, ctl.signal), info().catch(() => null)]);
      if (!alive || g !== gen) return;
      if (i && i.runs && !i.readOnly && !canRun) {
        canRun = true;
        resumeForm(i, d);
      }
      reset();
      first = d.offset;
      end = d.offset + d.entries.length;
      total = d.total ?? Infinity;
      place(d, 'bottom');
      if (!header.dataset.done) headerFor(d);
      status();
      if (then) then(d);
    } catch (e) {
      if (!alive) return;
      bottomStatus.textContent = 'The session could not be read.';
      report(e);
    } finally {
      busyDown = busyUp = false;
    }
    if (grewBusy) { grewBusy = false; grew(); }
    // The first page may not fill the view.
    requestAnimationFrame(check);
  }

  async function more() {
    if (busyDown || end >= total) return;
    busyDown = true;
    bottomStatus.textContent = 'Loading…';
    const g = gen;
    try {
      const d = await fetchEntries(ref, { offset: end, limit: PAGE }, ctl.signal);
      if (!alive || g !== gen || d.offset !== end) return;
      place(d, 'bottom');
      end += d.entries.length;
      total = d.total ?? total;
      if (d.entries.length === 0) total = end;
      status();
    } catch (e) {
      if (alive) { bottomStatus.textContent = 'Could not load more entries.'; report(e); }
    } finally {
      busyDown = false;
    }
    if (grewBusy) { grewBusy = false; grew(); }
    requestAnimationFrame(check);
  }

  async function earlier() {
    if (busyUp || first <= 0) return;
    busyUp = true;
    topStatus.textContent = 'Loading…';
    const offset = Math.max(0, first - PAGE);
    const g = gen;
    try {
      const d = await fetchEntries(ref, { offset, limit: first - offset }, ctl.signal);
      if (!alive || g !== gen) return;
      // Keep what is on screen where it is.
      const before = view.scrollHeight;
      const top = view.scrollTop;
      place(d, 'top');
      first = offset;
      view.scrollTop = top + (view.scrollHeight - before);
      status();
    } catch (e) {
      if (alive) { topStatus.textContent = 'Could not load earlier entries.'; report(e); }
    } finally {
      busyUp = false;
    }
    requestAnimationFrame(check);
  }

  // check loads more when the reader is near either end.
  function check() {
    if (!alive) return;
    const margin = Math.max(1200, view.clientHeight * 2);
    if (view.scrollTop + view.clientHeight > view.scrollHeight - margin) more();
    if (first > 0 && view.scrollTop < margin && list.childElementCount) earlier();
    status();
  }
  let frame = 0;
  const onScroll = () => {
    if (frame) return;
    frame = requestAnimationFrame(() => { frame = 0; check(); });
  };
  view.addEventListener('scroll', onScroll, { passive: true });

  function headerFor(d) {
    header.dataset.done = '1';
    const s = d.session || {};
    cli = (s.source && s.source.cli) || cli;
    clear(header);
    document.title = (s.title || ref) + ' · stead';
    const created = s.metadata && s.metadata.created;
    const modified = s.metadata && s.metadata.lastModified;
    const tokens = s.metadata && s.metadata.tokens;
    const costEl = h('span', { class: 'fig', text: '…' });
    const figs = h('div', { class: 'figures' },
      fig('CLI', h('span', { class: 'cli cli-' + cli, text: cli })),
      fig('Project', h('span', { class: 'path', text: (s.project && s.project.path) || '—', title: (s.project && s.project.path) || '' })),
      fig('Model', [s.model && s.model.model, s.model && s.model.provider ? `(${s.model.provider})` : ''].filter(Boolean).join(' ') || '—'),
      fig('Started', fmtDate(created, true)),
      fig('Ended', fmtDate(modified, true)),
      fig('Duration', fmtDuration(durationMs(created, modified))),
      fig('Entries', d.total != null ? fmtInt(d.total) : h('span', { id: 'fig-entries', text: '…' })),
      fig('Tokens', h('span', { text: fmtTokens(usageTotal(tokens)), title: fmtUsage(tokens) })),
      fig('Cost', costEl));
    const exportLink = (format, label) => h('a', {
      class: 'export-link', href: '/api/v1/sessions/' + encodeURIComponent(d.ref || ref) + '/export?format=' + format,
      download: '', text: label, title: 'download the session as ' + label,
    });
    const actions = h('div', { class: 'actions' },
      h('span', { class: 'exports muted', id: 'export-links' }, 'Export ', exportLink('usf', 'USF'), ' · ',
        exportLink('cusf', 'CUSF'), ' · ', exportLink('ndjson', 'NDJSON'), ' · ', exportLink('html', 'HTML')),
      h('a', { class: 'button', href: '#/compare?refs=' + encodeURIComponent(ref), text: 'Compare with…', id: 'compare-with' }));
    const links = h('div', { class: 'links' });
    if (s.parent && s.parent.id) {
      links.appendChild(h('span', null, `${s.parent.kind || 'child'} of `, sessionLink((s.parent.cli || cli) + ':' + s.parent.id)));
    }
    if (Array.isArray(s.subagents) && s.subagents.length) {
      const sp = h('span', null, `${s.subagents.length} subagent${s.subagents.length === 1 ? '' : 's'}: `);
      s.subagents.slice(0, 50).forEach((l, k) => {
        if (k) sp.appendChild(document.createTextNode(', '));
        sp.appendChild(sessionLink((l.cli || cli) + ':' + l.id, l.agentId || l.id));
      });
      if (s.subagents.length > 50) sp.appendChild(document.createTextNode(` … ${s.subagents.length - 50} more`));
      links.appendChild(sp);
    }
    header.append(
      h('div', { class: 'title-row' }, h('h1', { class: 'title', text: s.title || '(untitled)' }), actions),
      h('div', { class: 'ref muted', text: d.ref || ref, title: (s.source && s.source.path) || '' }),
      figs, links);
    if (Array.isArray(s.warnings) && s.warnings.length) {
      const det = h('details', { class: 'warnings' }, h('summary', { class: 'muted', text: `${s.warnings.length} warning${s.warnings.length === 1 ? '' : 's'} reading this session` }));
      const ul = h('ul', { class: 'warn-list' });
      for (const w of s.warnings.slice(0, 200)) ul.appendChild(h('li', { text: `${w.path || ''}${w.line ? ':' + w.line : ''}  ${w.message || ''}` }));
      det.appendChild(ul);
      header.appendChild(det);
    }
    sessionRow(d.ref || ref, ctl.signal).then((row) => {
      costEl.textContent = row ? fmtCost(row.cost) : '—';
      if (row && d.partial) {
        // The first page was read without the session's end: its
        // figures come from the session's summary.
        const repl = (name, value) => {
          const el = [...figs.children].find((f) => f.firstChild && f.firstChild.textContent === name);
          if (el && el.lastChild) el.lastChild.textContent = value;
        };
        repl('Ended', fmtDate(row.end, true));
        repl('Duration', fmtDuration(durationMs(row.start, row.end)));
        repl('Tokens', fmtTokens(row.tokens));
      }
      if (row && row.title && !s.title) {
        header.querySelector('h1.title').textContent = row.title;
        document.title = row.title + ' · stead';
      }
      if (row && row.toolErrors) figs.appendChild(fig('Errors', h('span', { class: 'err-count', text: String(row.toolErrors) })));
    }).catch(() => { costEl.textContent = '—'; });
  }

  // The form that starts a run from this session: resumed in a CLI, or
  // forked after an entry (its "fork" button).
  let atChip = null;
  function resumeForm(i, d) {
    const s = d.session || {};
    const to = h('select', { id: 'resume-to', title: 'the CLI to continue in' });
    for (const c of i.clis.filter((c) => c.runs)) to.appendChild(h('option', { value: c.name, text: c.title || c.name, selected: c.name === cli }));
    const dir = h('input', { type: 'text', id: 'resume-dir', placeholder: (s.project && s.project.path) || 'folder (absolute path)', title: 'the folder the run works in (default: the session\'s project)' });
    const prompt = h('input', { type: 'text', id: 'resume-prompt', placeholder: 'a prompt to type once it is ready (optional)' });
    const model = h('input', { type: 'text', id: 'resume-model', placeholder: 'model (optional)' });
    const auto = h('input', { type: 'checkbox', id: 'resume-auto' });
    const start = h('button', { type: 'submit', id: 'resume-start', class: 'primary', text: 'Start run' });
    atChip = h('span', { class: 'chip at-chip', hidden: true });
    const form = h('form', { id: 'resume-form', class: 'resume-form' },
      h('span', { class: 'label', text: 'Continue in' }), to,
      h('label', null, 'in ', dir), prompt, model,
      h('label', { class: 'check', title: 'the CLI runs every tool without asking' }, auto, ' auto-approve'),
      atChip, start);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const body = { from: d.ref || ref, to: to.value };
      if (forkAt) body.at = forkAt;
      if (prompt.value.trim()) body.prompt = prompt.value;
      if (dir.value.trim()) body.dir = dir.value.trim();
      if (model.value.trim()) body.model = model.value.trim();
      if (auto.checked) body.autoApprove = true;
      start.disabled = true;
      start.textContent = 'Starting…';
      try {
        const rec = await post('/api/v1/runs', body, ctl.signal);
        if (alive && rec && rec.id) location.hash = '#/run/' + encodeURIComponent(rec.id);
      } catch (e) {
        if (alive) report(e);
      } finally {
        start.disabled = false;
        start.textContent = 'Start run';
      }
    });
    resume.appendChild(form);
    resume.hidden = false;
  }

  function forkAfter(e, index) {
    if (!atChip) return;
    forkAt = e.id;
    clear(atChip);
    const rm = h('button', { type: 'button', class: 'link', text: '×', title: 'resume the whole session instead' });
    rm.addEventListener('click', () => { forkAt = null; atChip.hidden = true; });
    atChip.append(`fork after entry ${index + 1}`, rm);
    atChip.title = 'the run starts from the session up to and with entry ' + e.id;
    atChip.hidden = false;
    resume.scrollIntoView({ block: 'nearest' });
    document.getElementById('resume-prompt').focus();
  }

  function fig(label, v) {
    return h('div', { class: 'fig' }, h('span', { class: 'label', text: label }), v instanceof Node ? v : h('span', { text: v }));
  }

  startBtn.addEventListener('click', () => {
    if (first === 0) { view.scrollTop = 0; return; }
    open({ offset: 0 }, () => { view.scrollTop = 0; });
  });
  endBtn.addEventListener('click', async () => {
    if (end >= total) { view.scrollTop = view.scrollHeight; return; }
    if (!known()) {
      // Ask a page past the first for the total.
      try {
        const d = await fetchEntries(ref, { offset: 1, limit: 1 }, ctl.signal);
        total = d.total;
      } catch (e) { report(e); return; }
    }
    open({ offset: Math.max(0, total - PAGE) }, () => { view.scrollTop = view.scrollHeight; });
  });
  gotoForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const n = parseInt(gotoInput.value, 10);
    if (!(n >= 1)) return;
    const i = Math.min(n, Math.max(1, total)) - 1;
    const show = () => {
      const el = document.getElementById('e-' + i);
      if (el) { el.scrollIntoView({ block: 'start' }); el.classList.add('flash'); }
    };
    if (i >= first && i < end) { show(); return; }
    open({ offset: Math.max(0, i - 20) }, show);
  });

  open(at ? { at } : { offset: 0 }, (d) => {
    if (!at) return;
    const i = d.at;
    const el = i !== undefined ? document.getElementById('e-' + i) : list.querySelector(`[data-entry-id="${CSS.escape(at)}"]`);
    if (el) {
      el.classList.add('hit');
      // Open the folds the hit is in.
      for (let p = el.parentElement; p && p !== list; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;
      el.scrollIntoView({ block: 'center' });
    }
  });

  // A session that grows (its CLI still writes it) shows what was
  // added, when the reader is at its end: told by its own file's stream
  // at once, or by the stores' watcher once they are quiet.
  let grewBusy = false; // it grew while a page was being read
  const grew = () => {
    if (!alive || !known() || end < total) return;
    if (busyDown) { grewBusy = true; return; }
    total = Infinity;
    more();
  };
  const offChanged = onSessionsChanged(grew);
  const offFile = onSessionChanged(ref, grew);

  return () => {
    alive = false;
    offChanged();
    offFile();
    ctl.abort();
    cancelAnimationFrame(frame);
    view.removeEventListener('scroll', onScroll);
    document.title = 'stead control room';
  };
}
