// The control room: a single page app with hash routes.
//   #/sessions                 every CLI's sessions
//   #/session/<ref>[?at=<id>]  one session's timeline
//   #/search?q=…               full-text search
//   #/compare?refs=a,b         sessions side by side
//   #/usage                    tokens and cost over time
//   #/runs, #/run/<id>         live runs
//   #/ab/<id>                  an A/B run, opened in compare
//   #/chain/<id>               a chain's steps as they run
// Each page module exports mount(view, route) and may return a function
// that tears it down (closes its event streams, its timers).

import { info, clearError, report } from './api.js';
import { clear, h } from './dom.js';
import * as sessions from './sessions.js';
import * as timeline from './timeline.js';
import * as search from './search.js';
import * as compare from './compare.js';
import * as usage from './usage.js';
import * as runs from './runs.js';
import * as ab from './ab.js';
import * as chain from './chain.js';

const pages = {
  sessions: { nav: 'sessions', mod: sessions },
  session: { nav: 'sessions', mod: timeline },
  search: { nav: 'search', mod: search },
  compare: { nav: 'compare', mod: compare },
  usage: { nav: 'usage', mod: usage },
  runs: { nav: 'runs', mod: runs, fn: 'mountList' },
  run: { nav: 'runs', mod: runs, fn: 'mountRun', needs: loadXterm },
  ab: { nav: 'compare', mod: ab },
  chain: { nav: 'runs', mod: chain },
};

// loadXterm loads xterm.js (window.Terminal) the first time a run's page
// needs it, so that every other page opens without parsing it.
let xterm = null;
function loadXterm() {
  if (!xterm) {
    xterm = new Promise((resolve) => {
      const s = document.createElement('script');
      s.src = '/vendor/xterm/xterm.js';
      s.onload = resolve;
      s.onerror = resolve; // the run's page says the terminal could not be loaded
      document.head.appendChild(s);
    });
  }
  return xterm;
}

// parse reads a hash: #/<page>[/<arg>][?<query>].
export function parse(hash) {
  let s = hash.replace(/^#\/?/, '');
  let query = '';
  const q = s.indexOf('?');
  if (q >= 0) { query = s.slice(q + 1); s = s.slice(0, q); }
  const slash = s.indexOf('/');
  const page = slash >= 0 ? s.slice(0, slash) : s;
  let arg = slash >= 0 ? s.slice(slash + 1) : '';
  try { arg = decodeURIComponent(arg); } catch (_) { /* keep it as it is */ }
  return { page: page || 'sessions', arg, params: new URLSearchParams(query) };
}

let teardown = null;
let current = '';

function route() {
  const hash = location.hash || '#/sessions';
  if (hash === current) return;
  current = hash;
  if (teardown) {
    try { teardown(); } catch (e) { console.error(e); }
    teardown = null;
  }
  clearError();
  const r = parse(hash);
  const p = pages[r.page];
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', !!p && a.dataset.page === p.nav);
  const view = document.getElementById('view');
  clear(view);
  view.scrollTop = 0;
  view.className = 'page-' + (p ? r.page : 'none');
  if (!p) {
    view.appendChild(h('p', null, 'No such page. ', h('a', { href: '#/sessions', text: 'See the sessions.' })));
    return;
  }
  const mount = () => {
    if (current !== hash) return; // the reader went elsewhere meanwhile
    try {
      const t = p.mod[p.fn || 'mount'](view, r);
      if (typeof t === 'function') teardown = t;
    } catch (e) {
      report(e);
    }
  };
  if (p.needs) p.needs().then(mount);
  else mount();
}

async function header() {
  try {
    const i = await info();
    const el = document.getElementById('server-info');
    el.textContent = [i.host, i.version ? 'stead ' + i.version : 'stead', i.readOnly ? 'read-only' : ''].filter(Boolean).join(' · ');
    el.title = 'the machine the control room reads';
    if (i.readOnly) document.body.classList.add('read-only');
  } catch (e) {
    report(e);
  }
}

window.addEventListener('hashchange', route);
// A page left closes its event streams (route's teardown); one the
// browser brings back from its cache is mounted again.
window.addEventListener('pagehide', () => {
  if (teardown) {
    try { teardown(); } catch (e) { console.error(e); }
    teardown = null;
  }
  current = '';
});
window.addEventListener('pageshow', (ev) => { if (ev.persisted) route(); });
header();
route();
