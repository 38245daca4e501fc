// #/compare?refs=a,b[,c,d]: two to four sessions side by side, their
// figures in a table and their timelines in columns aligned by turn
// (turn n: the n-th prompt and all that follows it until the next).

import { allEntries, entries as fetchEntries, sessionList, sessionRow, report } from './api.js';
import {
  h, clear, fmtDate, fmtDuration, durationMs, fmtTokens, fmtCost, fmtInt, fmtUsage, usageTotal, sessionLink, sessionHash, debounce,
} from './dom.js';
import { EntryRenderer, filesOf, isPrompt, isError } from './entries.js';

const MAX = 4;
const TURNS_AT_ONCE = 25;
// Past this many entries a session's figures are counted from its
// first entries only.
const MAX_ENTRIES = 20000;

function hashFor(refs) {
  return '#/compare' + (refs.length ? '?refs=' + refs.map(encodeURIComponent).join(',') : '');
}

// turnsOf splits entries into turns: turn 0 holds what comes before the
// first prompt.
export function turnsOf(list) {
  const turns = [{ prompt: null, items: [] }];
  list.forEach((e, i) => {
    if (isPrompt(e)) turns.push({ prompt: e, items: [] });
    turns[turns.length - 1].items.push([e, i]);
  });
  return turns;
}

function figuresOf(list) {
  const f = { tools: {}, calls: 0, errors: 0, files: new Set(), usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, prompts: 0 };
  for (const e of list) {
    if (e.type === 'tool_call') {
      f.calls++;
      const k = e.tool || 'unknown';
      f.tools[k] = (f.tools[k] || 0) + 1;
      for (const p of filesOf(e)) f.files.add(p);
    }
    if (e.type === 'tool_result' && isError(e)) f.errors++;
    if (isPrompt(e)) f.prompts++;
    if (e.usage) for (const k of Object.keys(f.usage)) f.usage[k] += e.usage[k] || 0;
  }
  return f;
}

export function mount(view, route) {
  const refs = (route.params.get('refs') || '').split(',').map((s) => s.trim()).filter(Boolean).slice(0, MAX);
  const ctl = new AbortController();
  let alive = true;

  view.appendChild(h('h1', { text: 'Compare sessions' }));
  view.appendChild(picker(refs, ctl));
  if (refs.length < 2) {
    view.appendChild(h('p', { class: 'muted', text: 'Pick two to four sessions to compare: here, or tick them in the sessions list.' }));
    return () => { alive = false; ctl.abort(); };
  }

  const progress = h('div', { class: 'muted progress', text: 'Loading…' });
  const figTable = h('div', { class: 'figures-wrap' });
  const cols = h('div', { class: `compare-cols cols-${refs.length}` });
  const turnsBox = h('div', { id: 'compare-turns', class: `compare-grid cols-${refs.length}` });
  const moreBtn = h('button', { type: 'button', text: 'Show more turns', hidden: true });
  view.append(progress, figTable, cols, turnsBox, moreBtn);

  const loaded = new Array(refs.length).fill(0);
  const totals = new Array(refs.length).fill(0);
  const showProgress = () => {
    progress.textContent = 'Loading entries: ' + refs.map((r, k) => `${fmtInt(loaded[k])}${totals[k] ? ' of ' + fmtInt(totals[k]) : ''}`).join(' · ');
  };

  Promise.all(refs.map(async (ref, k) => {
    const [row, data] = await Promise.all([
      sessionRow(ref, ctl.signal).catch(() => null),
      allEntries(ref, (n, t) => { loaded[k] = n; totals[k] = t; if (alive) showProgress(); }, ctl.signal, MAX_ENTRIES),
    ]);
    return { ref, row, data, figs: figuresOf(data.entries), turns: turnsOf(data.entries) };
  })).then((sessions) => {
    if (!alive) return;
    const capped = sessions.filter((s) => s.data.entries.length < s.data.total);
    progress.textContent = capped.length ? `Only the first ${fmtInt(MAX_ENTRIES)} entries of the longest sessions are compared.` : '';
    progress.hidden = !capped.length;
    figuresTable(figTable, sessions);
    columns(cols, sessions, refs);
    let shown = 0;
    const maxTurns = Math.max(...sessions.map((s) => s.turns.length));
    const renderers = sessions.map((s) => new EntryRenderer({
      ids: false,
      cli: s.row ? s.row.cli : s.ref.slice(0, s.ref.indexOf(':')),
      raw: async (e, index) => {
        const d = await fetchEntries(s.ref, { offset: index, limit: 1, native: 'true' });
        return d.entries[0] && d.entries[0].native;
      },
      whole: async (e, index) => {
        const d = await fetchEntries(s.ref, { offset: index, limit: 1, full: 'true' });
        if (!d.entries[0] || d.entries[0].id !== e.id) throw new Error('the session changed since it was shown: reload it');
        return d.entries[0];
      },
    }));
    // Turn 0 (what comes before the first prompt) only when there is some.
    if (sessions.every((s) => !s.turns[0].items.length)) shown = 1;
    const showMore = () => {
      const until = Math.min(maxTurns, shown + TURNS_AT_ONCE);
      for (let t = shown; t < until; t++) turnsBox.appendChild(turnRow(t, sessions, renderers));
      shown = until;
      moreBtn.hidden = shown >= maxTurns;
      moreBtn.textContent = `Show more turns (${fmtInt(maxTurns - shown)} left)`;
    };
    moreBtn.addEventListener('click', showMore);
    showMore();
  }).catch((e) => {
    if (!alive) return;
    progress.textContent = 'The sessions could not be read.';
    report(e);
  });

  return () => { alive = false; ctl.abort(); };
}

function picker(refs, ctl) {
  const box = h('div', { class: 'compare-picker' });
  const chips = h('div', { class: 'chips' });
  refs.forEach((r) => {
    const rm = h('button', { type: 'button', class: 'link', text: '×', title: 'leave this session out' });
    rm.addEventListener('click', () => { location.hash = hashFor(refs.filter((x) => x !== r)); });
    chips.appendChild(h('span', { class: 'chip' }, sessionLink(r), rm));
  });
  box.appendChild(chips);
  if (refs.length >= MAX) return box;
  const input = h('input', { type: 'search', id: 'compare-add', placeholder: 'Add a session: filter by title, project or id…' });
  const results = h('div', { class: 'pick-results' });
  box.append(h('div', { class: 'row' }, input), results);
  const search = debounce(async () => {
    const text = input.value.trim().toLowerCase();
    clear(results);
    if (!text) return;
    try {
      const d = await sessionList(false);
      const found = d.sessions.filter((s) => !refs.includes(s.ref)
        && `${s.title || ''}\n${s.project || ''}\n${s.ref}`.toLowerCase().includes(text)).slice(0, 30);
      if (!found.length) results.appendChild(h('div', { class: 'muted', text: 'No session matches.' }));
      for (const s of found) {
        const add = h('button', { type: 'button', text: 'Add' });
        add.addEventListener('click', () => { location.hash = hashFor([...refs, s.ref]); });
        results.appendChild(h('div', { class: 'pick-row' }, add,
          h('span', { class: 'cli cli-' + s.cli, text: s.cli }),
          h('span', { class: 'pick-title', text: s.title || '(untitled)' }),
          h('span', { class: 'muted path', text: s.project || '' }),
          h('span', { class: 'muted', text: fmtDate(s.start) })));
      }
    } catch (e) { report(e); }
  }, 150);
  input.addEventListener('input', search);
  return box;
}

function figuresTable(box, sessions) {
  const t = h('table', { class: 'figures-table' });
  const head = h('tr', null, h('th', { text: '' }));
  for (const s of sessions) head.appendChild(h('th', null, sessionLink(s.ref, (s.row && s.row.title) || (s.data.session && s.data.session.title) || s.ref)));
  t.appendChild(h('thead', null, head));
  const body = h('tbody');
  const line = (label, fn, cls) => {
    const tr = h('tr', { class: cls || '' }, h('th', { text: label }));
    for (const s of sessions) {
      const v = fn(s);
      tr.appendChild(h('td', null, v instanceof Node ? v : String(v ?? '—')));
    }
    body.appendChild(tr);
  };
  const meta = (s) => s.data.session || {};
  const start = (s) => (s.row && s.row.start) || (meta(s).metadata && meta(s).metadata.created);
  const end = (s) => (s.row && s.row.end) || (meta(s).metadata && meta(s).metadata.lastModified);
  const usage = (s) => (s.row && s.row.usage) || (meta(s).metadata && meta(s).metadata.tokens) || s.figs.usage;
  line('CLI', (s) => h('span', { class: 'cli cli-' + (s.row ? s.row.cli : ''), text: s.row ? s.row.cli : s.ref.split(':')[0] }));
  line('Project', (s) => h('span', { class: 'path', text: (s.row && s.row.project) || (meta(s).project && meta(s).project.path) || '—' }));
  line('Model', (s) => ((s.row && s.row.models && s.row.models.join(', ')) || (meta(s).model && meta(s).model.model) || '—'));
  line('Started', (s) => fmtDate(start(s)));
  line('Duration', (s) => fmtDuration(durationMs(start(s), end(s))));
  line('Messages', (s) => fmtInt(s.row ? s.row.messages : null));
  line('Turns', (s) => fmtInt(s.row && s.row.turns ? s.row.turns : s.figs.prompts));
  line('Entries', (s) => fmtInt(s.data.total));
  line('Tokens', (s) => h('span', { text: fmtTokens(s.row ? s.row.tokens : usageTotal(usage(s))), title: fmtUsage(usage(s)) }));
  line('· input', (s) => fmtTokens(usage(s).input || 0), 'sub');
  line('· output', (s) => fmtTokens(usage(s).output || 0), 'sub');
  line('· cache read', (s) => fmtTokens(usage(s).cacheRead || 0), 'sub');
  line('· cache write', (s) => fmtTokens(usage(s).cacheWrite || 0), 'sub');
  line('Cost', (s) => fmtCost(s.row ? s.row.cost : null));
  line('Tool calls', (s) => fmtInt(s.row ? s.row.toolCalls : s.figs.calls));
  const kinds = new Set();
  for (const s of sessions) for (const k of Object.keys((s.row && s.row.tools) || s.figs.tools)) kinds.add(k);
  for (const k of [...kinds].sort()) line('· ' + k, (s) => fmtInt(((s.row && s.row.tools) || s.figs.tools)[k] || 0), 'sub');
  line('Errors', (s) => {
    const n = s.row ? s.row.toolErrors : s.figs.errors;
    return n ? h('span', { class: 'err-count', text: String(n) }) : '0';
  });
  line('Files changed', (s) => {
    const files = [...s.figs.files].sort();
    if (!files.length) return '0';
    const d = h('details', null, h('summary', { text: String(files.length) }));
    const ul = h('ul', { class: 'files' });
    for (const f of files) ul.appendChild(h('li', { class: 'path', text: f }));
    d.appendChild(ul);
    return d;
  });
  t.appendChild(body);
  box.appendChild(t);
}

function columns(box, sessions, refs) {
  for (const s of sessions) {
    const rm = h('a', { href: hashFor(refs.filter((x) => x !== s.ref)), class: 'remove', text: '×', title: 'leave this session out' });
    const title = (s.row && s.row.title) || (s.data.session && s.data.session.title) || s.ref;
    box.appendChild(h('div', { class: 'compare-col', data: { ref: s.ref } },
      h('div', { class: 'col-title' }, h('a', { href: sessionHash(s.ref), text: title }), rm),
      h('div', { class: 'muted ref', text: s.ref })));
  }
}

function turnRow(t, sessions, renderers) {
  const row = h('div', { class: 'compare-turn', data: { turn: t } });
  const firstPrompt = sessions.map((s) => s.turns[t] && s.turns[t].prompt).find(Boolean);
  row.appendChild(h('div', { class: 'turn-label' },
    h('strong', { text: t === 0 ? 'Before the first prompt' : `Turn ${t}` }),
    firstPrompt ? h('span', { class: 'muted', text: ' ' + firstLineOf(firstPrompt.content) }) : null));
  sessions.forEach((s, k) => {
    const cell = h('div', { class: 'compare-cell', data: { ref: s.ref } });
    const turn = s.turns[t];
    if (!turn || !turn.items.length) {
      cell.classList.add('empty');
      cell.appendChild(h('div', { class: 'muted', text: turn ? '—' : 'no such turn' }));
    } else {
      const f = figuresOf(turn.items.map(([e]) => e));
      const first = turn.items[0][0].timestamp;
      const last = turn.items[turn.items.length - 1][0].timestamp;
      cell.appendChild(h('div', { class: 'cell-figs muted', text: [
        fmtDuration(durationMs(first, last)),
        `${fmtTokens(usageTotal(f.usage))} tokens`,
        `${f.calls} tool call${f.calls === 1 ? '' : 's'}`,
        f.errors ? `${f.errors} error${f.errors === 1 ? '' : 's'}` : '',
      ].filter(Boolean).join(' · ') }));
      const r = renderers[k];
      for (const [e, i] of turn.items) {
        const el = r.render(e, i);
        if (el) cell.appendChild(el);
      }
    }
    row.appendChild(cell);
  });
  return row;
}

function firstLineOf(s) {
  s = String(s || '').trim();
  const l = s.split('\n')[0];
  return l.length > 100 ? l.slice(0, 100) + '…' : l;
}
