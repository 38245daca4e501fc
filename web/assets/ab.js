// #/ab/<id>: an A/B run opens straight into the comparison of the
// sessions its variants wrote (#/compare?refs=…).
import { get, post, report } from './api.js';
import { h, clear } from './dom.js';

export function mount(view, route) {
  const ctl = new AbortController();
  let alive = true;
  let timer = 0;
  const status = h('p', { class: 'muted', id: 'ab-status', text: 'Loading…' });
  const list = h('ul', { class: 'ab-variants' });
  view.append(h('h1', { text: 'A/B run ' + route.arg }), status, list);
  // Its variants' sessions are known once their CLIs wrote them: until
  // then the page says how each variant is doing, and asks again.
  async function load() {
    try {
      const d = await get('/api/v1/ab/' + encodeURIComponent(route.arg), null, ctl.signal);
      if (!alive) return;
      const refs = (d.refs || []).filter(Boolean);
      const variants = d.ab.variants || [];
      const running = variants.some((v) => !v.finished || v.finished.startsWith('0001'));
      if (refs.length >= 2 && (refs.length === variants.length || !running)) {
        location.replace('#/compare?refs=' + encodeURIComponent(refs.slice(0, 4).join(',')) + '&ab=' + encodeURIComponent(d.ab.id));
        return;
      }
      clear(list);
      for (const v of variants) list.appendChild(h('li', { text: `${v.name}: ${v.state || 'starting'}${v.error ? ' (' + v.error + ')' : ''}` }));
      status.textContent = d.ab.prompt ? `"${d.ab.prompt}": the variants are running; the comparison opens when their sessions are written.` : 'Running…';
      if (!running && refs.length < 2) {
        status.textContent = 'Fewer than two of its variants wrote a session that is known here: see stead ab show ' + d.ab.id + '.';
        return;
      }
      timer = setTimeout(load, 1000);
    } catch (e) {
      if (alive) report(e);
    }
  }
  load();
  return () => { alive = false; clearTimeout(timer); ctl.abort(); };
}

// abForm starts an A/B run: one prompt through several CLIs, each in a
// copy of the project; its page opens into the comparison.
export function abForm(clis) {
  const prompt = h('input', { type: 'text', id: 'ab-prompt', placeholder: 'the prompt every CLI runs', required: true });
  const boxes = clis.filter((c) => c.runs).map((c) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', class: 'ab-cli', value: c.name }), ' ' + (c.title || c.name)));
  const repeat = h('input', { type: 'number', id: 'ab-repeat', min: '1', max: '10', value: '1', title: 'runs of each CLI' });
  const project = h('input', { type: 'text', id: 'ab-project', placeholder: 'project folder (absolute path)', required: true });
  const from = h('input', { type: 'text', id: 'ab-from', placeholder: 'continue a session: cli:id (optional)' });
  const start = h('button', { type: 'submit', id: 'ab-start', class: 'primary', text: 'Start A/B run' });
  const form = h('form', { id: 'ab-form', class: 'ab-form' }, prompt, ...boxes, h('span', null, ' × '), repeat, project, from, start);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const to = boxes.map((b) => b.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
    start.disabled = true;
    try {
      const body = { prompt: prompt.value, to, project: project.value.trim(), repeat: parseInt(repeat.value, 10) || 1 };
      if (from.value.trim()) body.from = from.value.trim();
      const ab = await post('/api/v1/ab', body);
      location.hash = '#/ab/' + encodeURIComponent(ab.id);
    } catch (e) {
      report(e);
    } finally {
      start.disabled = false;
    }
  });
  return form;
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
