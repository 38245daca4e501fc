// #/search?q=…[&cli=a,b][&role=…][&project=…]: full-text search of every
// session through the server's index; a hit opens its session at the
// entry.

import { get, info, report } from './api.js';
import { h, clear, fmtDate, sessionHash } from './dom.js';

const ROLES = [
  ['user', 'prompts'], ['assistant', 'answers'], ['thinking', 'thinking'], ['tool_call', 'tool calls'], ['tool_result', 'tool output'],
];

// snippet builds a snippet's text with its matches (between mark and
// endMark) in <mark>.
export function snippet(text, mark, endMark) {
  const el = h('div', { class: 'snippet' });
  const s = String(text || '');
  mark = mark || '\u0002';
  endMark = endMark || '\u0003';
  let i = 0;
  while (i < s.length) {
    const a = s.indexOf(mark, i);
    if (a < 0) { el.appendChild(document.createTextNode(s.slice(i))); break; }
    if (a > i) el.appendChild(document.createTextNode(s.slice(i, a)));
    let b = s.indexOf(endMark, a + mark.length);
    if (b < 0) b = s.length;
    el.appendChild(h('mark', { text: s.slice(a + mark.length, b) }));
    i = b + endMark.length;
  }
  return el;
}

export function mount(view, route) {
  const p = route.params;
  const q = p.get('q') || '';
  const clis = new Set((p.get('cli') || '').split(',').filter(Boolean));
  const roles = new Set((p.get('role') || '').split(',').filter(Boolean));
  const ctl = new AbortController();
  let alive = true;

  const qInput = h('input', {
    type: 'search', name: 'q', id: 'search-q', value: q,
    placeholder: 'words  "a phrase"  prefix*  this OR that  -exclude',
    attrs: { 'aria-label': 'search for' },
  });
  const projInput = h('input', { type: 'text', name: 'project', id: 'search-project', value: p.get('project') || '', placeholder: 'project path contains' });
  const cliBox = h('span', { class: 'cli-filter' });
  const roleBox = h('span', { class: 'role-filter' });
  for (const [r, label] of ROLES) {
    roleBox.appendChild(h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'role', value: r, checked: roles.has(r) }), ' ' + label));
  }
  const form = h('form', { class: 'search-page-form', attrs: { role: 'search' } },
    h('div', { class: 'row' }, qInput, h('button', { type: 'submit', class: 'primary', text: 'Search' })),
    h('div', { class: 'row filters' }, cliBox, h('span', { class: 'sep' }), roleBox, h('label', null, 'Project ', projInput)),
    h('p', { class: 'muted hint', text: 'Words match anywhere (all of them); "quotes" match a phrase; word* matches a prefix; OR between alternatives; -word excludes.' }));
  const summary = h('div', { class: 'muted search-summary' });
  const hits = h('div', { id: 'hits', class: 'hits' });
  view.append(h('h1', { text: 'Search' }), form, summary, hits);

  info().then((i) => {
    if (!alive) return;
    for (const c of i.clis.filter((c) => c.reads)) {
      cliBox.appendChild(h('label', { class: 'check', title: c.title },
        h('input', { type: 'checkbox', name: 'cli', value: c.name, checked: clis.has(c.name) }), ' ' + c.name));
    }
  }).catch(report);

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const sp = new URLSearchParams();
    const text = qInput.value.trim();
    if (text) sp.set('q', text);
    const cs = [...form.querySelectorAll('input[name=cli]:checked')].map((x) => x.value);
    if (cs.length) sp.set('cli', cs.join(','));
    const rs = [...form.querySelectorAll('input[name=role]:checked')].map((x) => x.value);
    if (rs.length) sp.set('role', rs.join(','));
    if (projInput.value.trim()) sp.set('project', projInput.value.trim());
    const hash = '#/search?' + sp.toString();
    if (hash === location.hash) run(); else location.hash = hash;
  });

  async function run() {
    if (!q) { summary.textContent = 'Type something to search for.'; return; }
    summary.textContent = 'Searching…';
    clear(hits);
    try {
      const d = await get('/api/v1/search', {
        q, cli: p.get('cli') || '', role: p.get('role') || '', project: p.get('project') || '', limit: p.get('limit') || 200,
      }, ctl.signal);
      if (!alive) return;
      const n = d.hits.length;
      summary.textContent = n === 0 ? `Nothing matches ${q}.` : `${n} hit${n === 1 ? '' : 's'}${n >= (Number(p.get('limit')) || 200) ? ' (the best ones)' : ''}, best first`;
      for (const hit of d.hits) hits.appendChild(hitRow(hit, d.mark, d.endMark));
      if (d.warnings && d.warnings.length) {
        summary.appendChild(document.createTextNode(` · ${d.warnings.length} warning${d.warnings.length === 1 ? '' : 's'} reading the stores`));
      }
    } catch (e) {
      if (!alive) return;
      summary.textContent = '';
      report(e);
    }
  }

  if (!q) qInput.focus();
  run();
  return () => { alive = false; ctl.abort(); };
}

function hitRow(hit, mark, endMark) {
  const ref = hit.ref || `${hit.cli}:${hit.session}`;
  const role = hit.role === 'tool_call' || hit.role === 'tool_result' ? `${hit.role.replace('_', ' ')}${hit.tool ? ' · ' + hit.tool : ''}` : hit.role;
  const a = h('a', { class: 'hit-row', href: sessionHash(ref, hit.entry), data: { ref, entry: hit.entry } },
    h('div', { class: 'hit-head' },
      h('span', { class: 'cli cli-' + hit.cli, text: hit.cli }),
      h('span', { class: 'hit-title', text: hit.title || '(untitled)' }),
      h('span', { class: 'badge role role-' + String(hit.role).replace(/[^a-z_]/g, ''), text: role }),
      h('span', { class: 'spacer' }),
      hit.run ? h('span', { class: 'tag', text: 'run ' + hit.run }) : null,
      h('span', { class: 'muted', text: fmtDate(hit.time) })),
    h('div', { class: 'hit-meta muted' },
      h('span', { class: 'path', text: hit.project || '' }),
      h('span', { class: 'ref', text: ref }),
      hit.model ? h('span', { text: hit.model }) : null,
      hit.host ? h('span', { text: hit.host }) : null),
    snippet(hit.snippet, mark, endMark));
  return a;
}
