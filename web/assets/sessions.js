// #/sessions: every CLI's sessions in one list. The whole list is
// fetched once; filtering and sorting are done here, and only the rows in
// view are in the document (a fixed row height, a spacer as tall as all
// of them), so that 10,000 sessions scroll smoothly.

import { info, sessionList, report, onSessionsChanged } from './api.js';
import {
  h, clear, fmtDate, fmtDuration, durationMs, fmtTokens, fmtCost, fmtInt, localDate, sessionHash, debounce,
} from './dom.js';

export const ROW_H = 30;
const OVERSCAN = 8;
const MAX_PICK = 4;

const COLUMNS = [
  { key: 'pick', label: '', cls: 'c-pick' },
  { key: 'cli', label: 'CLI', cls: 'c-cli' },
  { key: 'title', label: 'Title', cls: 'c-title' },
  { key: 'project', label: 'Project', cls: 'c-project' },
  { key: 'start', label: 'Started', cls: 'c-start' },
  { key: 'duration', label: 'Duration', cls: 'c-dur num' },
  { key: 'messages', label: 'Msgs', cls: 'c-msgs num', title: 'messages' },
  { key: 'tokens', label: 'Tokens', cls: 'c-tokens num' },
  { key: 'cost', label: 'Cost', cls: 'c-cost num' },
  { key: 'errors', label: 'Errors', cls: 'c-errors num', title: 'tool calls that failed' },
  { key: 'host', label: 'Host', cls: 'c-host' },
];

// Kept while the page is open, so that coming back finds the list as it
// was left.
const state = {
  clis: null, // Set of CLI names shown; null: all
  project: '', since: '', until: '', model: '', errors: false, host: '', text: '',
  subagents: false,
  sort: { key: 'start', desc: true },
  picked: new Set(),
  scrollTop: 0,
};

function value(s, key) {
  switch (key) {
    case 'duration': return durationMs(s.start, s.end);
    case 'errors': return s.toolErrors;
    case 'start': return s.start || null;
    default: return s[key];
  }
}

function compare(a, b, key) {
  const x = value(a, key); const y = value(b, key);
  const xn = x === null || x === undefined || x === '';
  const yn = y === null || y === undefined || y === '';
  if (xn || yn) return xn === yn ? 0 : xn ? 1 : -1; // empty last either way
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  return String(x).localeCompare(String(y));
}

export function filterRows(all) {
  const since = localDate(state.since, false);
  const until = localDate(state.until, true);
  const project = state.project.toLowerCase();
  const model = state.model.toLowerCase();
  const text = state.text.toLowerCase();
  return all.filter((s) => {
    if (state.clis && !state.clis.has(s.cli)) return false;
    if (project && !(s.project || '').toLowerCase().includes(project)) return false;
    if (model && !(s.models || []).some((m) => m.toLowerCase().includes(model))) return false;
    if (state.errors && !(s.toolErrors > 0)) return false;
    if (state.host && s.host !== state.host) return false;
    if (since !== null || until !== null) {
      const t = s.start ? Date.parse(s.start) : NaN;
      if (Number.isNaN(t)) return false;
      if (since !== null && t < since) return false;
      if (until !== null && t >= until) return false;
    }
    if (text) {
      const hay = `${s.title || ''}\n${s.project || ''}\n${s.ref}\n${(s.models || []).join(' ')}`.toLowerCase();
      if (!hay.includes(text)) return false;
    }
    return true;
  });
}

function sortRows(rows) {
  const { key, desc } = state.sort;
  const sorted = rows.slice().sort((a, b) => {
    const c = compare(a, b, key);
    // Empty values stay last whichever way the sort goes.
    const ae = value(a, key); const be = value(b, key);
    if (ae === null || ae === undefined || be === null || be === undefined) return c;
    return desc ? -c : c;
  });
  return sorted;
}

export function mount(view) {
  let all = [];
  let loaded = false;
  let rows = [];
  let rendered = { first: -1, last: -1 };
  let frame = 0;
  let alive = true;

  const count = h('span', { class: 'count muted', text: 'Loading sessions…' });
  const compareBtn = h('button', { type: 'button', id: 'compare-btn', class: 'primary', disabled: true, text: 'Compare' });
  const clearPick = h('button', { type: 'button', class: 'link', text: 'clear', hidden: true });
  const cliBox = h('span', { class: 'cli-filter' });
  const hostSel = h('select', { id: 'f-host', title: 'machine', hidden: true }, h('option', { value: '', text: 'all machines' }));
  const warnBox = h('div', { class: 'warnings' });

  const fields = {};
  const input = (id, type, placeholder, key, extra) => {
    const el = h('input', { id, type, placeholder, value: state[key], ...(extra || {}) });
    fields[key] = el;
    const apply = () => { state[key] = el.value; update(); };
    el.addEventListener('input', type === 'date' ? apply : debounce(apply, 120));
    return el;
  };

  const errBox = h('input', { type: 'checkbox', id: 'f-errors', checked: state.errors });
  errBox.addEventListener('change', () => { state.errors = errBox.checked; update(); });
  const subBox = h('input', { type: 'checkbox', id: 'f-subagents', checked: state.subagents });
  subBox.addEventListener('change', () => { state.subagents = subBox.checked; load(false); });
  hostSel.addEventListener('change', () => { state.host = hostSel.value; update(); });

  const searchForm = h('form', { class: 'search-form', attrs: { role: 'search' } },
    h('input', { type: 'search', name: 'q', id: 'fulltext', placeholder: 'Search every message… (Enter)', attrs: { 'aria-label': 'full-text search' } }));
  searchForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const q = searchForm.elements.q.value.trim();
    if (q) location.hash = '#/search?q=' + encodeURIComponent(q);
  });

  const refresh = h('button', { type: 'button', text: 'Refresh', title: 'read the sessions again' });
  refresh.addEventListener('click', () => load(true));

  const resetBtn = h('button', { type: 'button', class: 'link', text: 'reset filters' });
  resetBtn.addEventListener('click', () => {
    Object.assign(state, { clis: null, project: '', since: '', until: '', model: '', errors: false, host: '', text: '' });
    for (const [k, el] of Object.entries(fields)) el.value = state[k];
    errBox.checked = false;
    hostSel.value = '';
    for (const b of cliBox.querySelectorAll('input')) b.checked = true;
    update();
  });

  const toolbar = h('div', { class: 'toolbar' },
    h('div', { class: 'row' },
      searchForm,
      input('f-text', 'search', 'Filter titles, projects, ids…', 'text', { attrs: { 'aria-label': 'quick filter' } }),
      h('span', { class: 'spacer' }),
      count, clearPick, compareBtn, refresh),
    h('div', { class: 'row filters' },
      cliBox,
      h('label', null, 'Project ', input('f-project', 'text', 'path contains', 'project')),
      h('label', null, 'Model ', input('f-model', 'text', 'e.g. opus', 'model')),
      h('label', null, 'Since ', input('f-since', 'date', '', 'since')),
      h('label', null, 'Until ', input('f-until', 'date', '', 'until')),
      hostSel,
      h('label', { class: 'check' }, errBox, ' with errors'),
      h('label', { class: 'check', title: 'also list the sessions subagents ran' }, subBox, ' subagents'),
      resetBtn),
    warnBox);

  const headRow = h('div', { class: 'session-head', attrs: { role: 'row' } });
  const spacer = h('div', { class: 'spacer-rows' });
  const empty = h('div', { class: 'empty muted', hidden: true });
  const scroller = h('div', { id: 'sessions-list', class: 'vlist', attrs: { role: 'table', 'aria-label': 'sessions' } }, headRow, empty, spacer);
  view.append(toolbar, scroller);

  for (const col of COLUMNS) {
    const cell = h('div', { class: 'cell ' + col.cls, attrs: { role: 'columnheader' }, title: col.title || '' });
    if (col.key === 'pick') {
      cell.textContent = '';
    } else {
      const btn = h('button', { type: 'button', class: 'sort', text: col.label, data: { key: col.key } });
      btn.addEventListener('click', () => {
        if (state.sort.key === col.key) state.sort.desc = !state.sort.desc;
        else state.sort = { key: col.key, desc: ['start', 'duration', 'messages', 'tokens', 'cost', 'errors'].includes(col.key) };
        update();
      });
      cell.appendChild(btn);
    }
    headRow.appendChild(cell);
  }

  compareBtn.addEventListener('click', () => {
    if (state.picked.size >= 2) location.hash = '#/compare?refs=' + [...state.picked].map(encodeURIComponent).join(',');
  });
  clearPick.addEventListener('click', () => { state.picked.clear(); pickChanged(); rendered.first = -1; schedule(); });

  function pickChanged() {
    const n = state.picked.size;
    compareBtn.disabled = n < 2 || n > MAX_PICK;
    compareBtn.textContent = n ? `Compare ${n}` : 'Compare';
    compareBtn.title = n < 2 ? 'tick 2 to 4 sessions to compare them' : '';
    clearPick.hidden = n === 0;
  }

  function headerMarks() {
    for (const b of headRow.querySelectorAll('button.sort')) {
      const on = b.dataset.key === state.sort.key;
      b.classList.toggle('sorted', on);
      b.classList.toggle('desc', on && state.sort.desc);
      b.parentElement.setAttribute('aria-sort', on ? (state.sort.desc ? 'descending' : 'ascending') : 'none');
    }
  }

  function update() {
    rows = sortRows(filterRows(all));
    spacer.style.height = rows.length * ROW_H + 'px';
    count.textContent = rows.length === all.length
      ? `${fmtInt(all.length)} sessions`
      : `${fmtInt(rows.length)} of ${fmtInt(all.length)} sessions`;
    headerMarks();
    empty.hidden = rows.length > 0 || !loaded;
    empty.textContent = all.length ? 'No session matches these filters.' : 'No sessions: none of the CLIs has a session in its store here.';
    rendered = { first: -1, last: -1 };
    schedule();
  }

  function schedule() {
    if (frame) return;
    frame = requestAnimationFrame(() => { frame = 0; if (alive) paint(); });
  }

  function paint() {
    const headH = headRow.offsetHeight;
    const top = Math.max(0, scroller.scrollTop - headH);
    const height = scroller.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
    const last = Math.min(rows.length, Math.ceil((top + height) / ROW_H) + OVERSCAN);
    state.scrollTop = scroller.scrollTop;
    if (first === rendered.first && last === rendered.last) return;
    // Keep the rows still in view; make the others.
    const keep = new Map();
    for (const el of [...spacer.children]) {
      const i = Number(el.dataset.i);
      if (i >= first && i < last && rendered.first >= 0 && rows[i] && rows[i].ref === el.dataset.ref) keep.set(i, el);
      else spacer.removeChild(el);
    }
    for (let i = first; i < last; i++) {
      if (!keep.has(i)) spacer.appendChild(row(rows[i], i));
    }
    rendered = { first, last };
  }

  function row(s, i) {
    const picked = state.picked.has(s.ref);
    const el = h('div', {
      class: 'session-row' + (picked ? ' picked' : '') + (s.toolErrors > 0 ? ' has-errors' : '') + (i % 2 ? ' odd' : ''),
      data: { ref: s.ref, i }, attrs: { role: 'row' },
    });
    el.style.top = i * ROW_H + 'px';
    const box = h('input', { type: 'checkbox', class: 'pick', checked: picked, title: 'pick to compare', attrs: { 'aria-label': 'pick ' + s.ref } });
    box.addEventListener('click', (ev) => ev.stopPropagation());
    box.addEventListener('change', () => {
      if (box.checked) {
        if (state.picked.size >= MAX_PICK) { box.checked = false; flash(`Compare takes at most ${MAX_PICK} sessions.`); return; }
        state.picked.add(s.ref);
      } else state.picked.delete(s.ref);
      el.classList.toggle('picked', box.checked);
      pickChanged();
    });
    const title = s.title || '(untitled)';
    const link = h('a', { href: sessionHash(s.ref), text: title, title: title + '\n' + s.ref });
    const dur = durationMs(s.start, s.end);
    const cells = [
      box,
      h('span', { class: 'cli cli-' + s.cli, text: s.cli }),
      [link, s.parent ? h('span', { class: 'tag', text: s.parent.kind || 'child', title: `${s.parent.kind || 'child'} of ${s.parent.cli}:${s.parent.id}` }) : null],
      h('span', { text: s.project || '', title: s.project || '' }),
      fmtDate(s.start),
      fmtDuration(dur),
      fmtInt(s.messages),
      h('span', { text: fmtTokens(s.tokens), title: `${fmtInt(s.tokens)} tokens` }),
      fmtCost(s.cost),
      s.toolErrors ? h('span', { class: 'err-count', text: String(s.toolErrors) }) : '',
      s.host || '',
    ];
    COLUMNS.forEach((col, k) => {
      const c = h('div', { class: 'cell ' + col.cls, attrs: { role: 'cell' } });
      const v = cells[k];
      if (Array.isArray(v)) v.forEach((x) => x && c.appendChild(x));
      else if (v instanceof Node) c.appendChild(v);
      else c.textContent = v;
      el.appendChild(c);
    });
    el.addEventListener('click', (ev) => {
      if (ev.target.closest('a, input, button')) return;
      location.hash = sessionHash(s.ref);
    });
    return el;
  }

  let flashTimer = 0;
  function flash(msg) {
    count.textContent = msg;
    clearTimeout(flashTimer);
    flashTimer = setTimeout(update, 2500);
  }

  function hosts() {
    const set = [...new Set(all.map((s) => s.host).filter(Boolean))].sort();
    clear(hostSel);
    hostSel.appendChild(h('option', { value: '', text: 'all machines' }));
    for (const x of set) hostSel.appendChild(h('option', { value: x, text: x, selected: x === state.host }));
    hostSel.hidden = set.length === 0;
    hostSel.disabled = set.length < 2 && !state.host;
  }

  function warnings(ws) {
    clear(warnBox);
    if (!ws || !ws.length) return;
    const d = h('details', null, h('summary', { class: 'muted', text: `${ws.length} warning${ws.length === 1 ? '' : 's'} reading the stores` }));
    const ul = h('ul', { class: 'warn-list' });
    for (const w of ws.slice(0, 200)) ul.appendChild(h('li', { text: `${w.path || ''}${w.line ? ':' + w.line : ''}  ${w.message || ''}` }));
    if (ws.length > 200) ul.appendChild(h('li', { class: 'muted', text: `… and ${ws.length - 200} more` }));
    d.appendChild(ul);
    warnBox.appendChild(d);
  }

  info().then((i) => {
    if (!alive) return;
    clear(cliBox);
    for (const c of i.clis.filter((c) => c.reads)) {
      const b = h('input', { type: 'checkbox', value: c.name, checked: !state.clis || state.clis.has(c.name), data: { cli: c.name } });
      b.addEventListener('change', () => {
        const on = [...cliBox.querySelectorAll('input:checked')].map((x) => x.value);
        state.clis = on.length === i.clis.filter((c) => c.reads).length ? null : new Set(on);
        update();
      });
      cliBox.appendChild(h('label', { class: 'check', title: c.title }, b, ' ' + c.name));
    }
  }).catch(report);

  async function load(refresh) {
    count.textContent = 'Loading sessions…';
    try {
      const d = await sessionList(state.subagents, refresh);
      if (!alive) return;
      all = d.sessions;
      loaded = true;
      hosts();
      warnings(d.warnings);
      update();
      if (!refresh && state.scrollTop) {
        scroller.scrollTop = state.scrollTop;
        schedule();
      }
    } catch (e) {
      if (alive) { count.textContent = 'The sessions could not be read.'; report(e); }
    }
  }

  const onScroll = () => schedule();
  scroller.addEventListener('scroll', onScroll, { passive: true });
  window.addEventListener('resize', onScroll);
  pickChanged();
  headerMarks();
  load(false);
  // The list follows the stores: the daemon says when they changed.
  const offChanged = onSessionsChanged(() => { if (alive) load(true); });

  function cleanup() {
    alive = false;
    offChanged();
    cancelAnimationFrame(frame);
    window.removeEventListener('resize', onScroll);
    clearTimeout(flashTimer);
  }
  return cleanup;
}
