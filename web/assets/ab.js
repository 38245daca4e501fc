// #/ab/<id>: an A/B run opens straight into the comparison of the
// sessions its variants wrote (#/compare?refs=…).
import { get, report } from './api.js';
import { h } from './dom.js';

export function mount(view, route) {
  const ctl = new AbortController();
  view.append(h('h1', { text: 'A/B run ' + route.arg }), h('p', { class: 'muted', text: 'Loading…' }));
  get('/api/v1/ab/' + encodeURIComponent(route.arg), null, ctl.signal).then((d) => {
    const refs = (d.refs || []).filter(Boolean);
    if (refs.length < 2) {
      view.lastChild.textContent = 'Its variants\' sessions are not known here (their runs are gone from the bus): see stead ab show ' + route.arg + '.';
      return;
    }
    location.replace('#/compare?refs=' + encodeURIComponent(refs.slice(0, 4).join(',')) + '&ab=' + encodeURIComponent(d.ab.id));
  }).catch(report);
  return () => ctl.abort();
}

// abTable lists the A/B runs kept, each a link into its comparison.
export async function abTable(signal) {
  const d = await get('/api/v1/ab', null, signal);
  const list = d.ab || [];
  const table = h('table', { class: 'data-table', id: 'ab-list' },
    h('thead', null, h('tr', null, ['A/B run', 'Prompt', 'Variants', 'Started'].map((c) => h('th', { text: c })))));
  const tb = h('tbody');
  for (const ab of list) {
    tb.appendChild(h('tr', { class: 'ab-row', data: { ab: ab.id } },
      h('td', null, h('a', { href: '#/ab/' + encodeURIComponent(ab.id), text: ab.id })),
      h('td', { text: ab.prompt || '' }),
      h('td', { text: (ab.variants || []).map((v) => `${v.name} (${v.state})`).join(', ') }),
      h('td', { text: ab.started ? new Date(ab.started).toLocaleString() : '' })));
  }
  if (!list.length) tb.appendChild(h('tr', null, h('td', { class: 'muted', attrs: { colspan: '4' }, text: 'No A/B runs kept: start one with stead ab.' })));
  table.appendChild(tb);
  return table;
}
