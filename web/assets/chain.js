// Chains: a form that starts one (each step a prompt for a CLI that
// continues where the step before ended), and #/chain/<id>, its steps as
// they run.
import { get, post, report } from './api.js';
import { h, clear } from './dom.js';

// chainForm starts a chain; its page follows it.
export function chainForm() {
  const steps = h('textarea', { id: 'chain-steps', rows: 3, placeholder: 'one step a line, cli: prompt\nclaude: plan the change\ncodex: implement it' });
  const dir = h('input', { type: 'text', id: 'chain-dir', placeholder: 'project folder (absolute path)', required: true });
  const from = h('input', { type: 'text', id: 'chain-from', placeholder: 'continue a session: cli:id (optional)' });
  const start = h('button', { type: 'submit', id: 'chain-start', class: 'primary', text: 'Start chain' });
  const form = h('form', { id: 'chain-form', class: 'ab-form' }, steps, dir, from, start);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const list = steps.value.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
      const i = l.indexOf(':');
      return i < 0 ? { cli: l, prompt: '' } : { cli: l.slice(0, i).trim(), prompt: l.slice(i + 1).trim() };
    });
    start.disabled = true;
    try {
      const body = { steps: list, dir: dir.value.trim() };
      if (from.value.trim()) body.from = from.value.trim();
      const c = await post('/api/v1/chains', body);
      location.hash = '#/chain/' + encodeURIComponent(c.id);
    } catch (e) {
      report(e);
    } finally {
      start.disabled = false;
    }
  });
  return form;
}

export function mount(view, route) {
  const ctl = new AbortController();
  let alive = true;
  let timer = 0;
  const status = h('p', { class: 'muted', id: 'chain-status', text: 'Loading…' });
  const table = h('table', { class: 'data-table', id: 'chain-steps-table' });
  view.append(h('h1', { text: 'Chain ' + route.arg }), status, table);
  async function load() {
    try {
      const c = await get('/api/v1/chains/' + encodeURIComponent(route.arg), null, ctl.signal);
      if (!alive) return;
      clear(table);
      table.appendChild(h('thead', null, h('tr', null, ['Step', 'CLI', 'Prompt', 'State', 'Run', 'Answer'].map((t) => h('th', { text: t })))));
      const tb = h('tbody');
      c.steps.forEach((st, i) => {
        const res = c.results[i];
        const running = !res && c.current === i + 1;
        const run = res ? res.run : running ? c.run : '';
        tb.appendChild(h('tr', { class: 'chain-step', data: { step: String(i + 1), state: res ? res.state : running ? 'running' : 'waiting' } },
          h('td', { class: 'num', text: String(i + 1) }),
          h('td', null, h('span', { class: 'cli cli-' + st.cli, text: st.cli })),
          h('td', { text: st.prompt }),
          h('td', { text: res ? res.state + (res.error ? ': ' + res.error : '') : running ? 'running' : 'waiting' }),
          h('td', null, run ? h('a', { href: '#/run/' + encodeURIComponent(run), text: run }) : ''),
          h('td', { class: 'answer', text: res && res.answer ? res.answer : '' })));
      });
      table.appendChild(tb);
      status.textContent = c.done ? (c.error ? 'Stopped: ' + c.error : 'Done.') : 'Running step ' + c.current + ' of ' + c.steps.length + '…';
      if (!c.done) timer = setTimeout(load, 1000);
    } catch (e) {
      if (alive) report(e);
    }
  }
  load();
  return () => { alive = false; clearTimeout(timer); ctl.abort(); };
}
