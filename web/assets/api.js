// The API client: same-origin fetches (the sign-in cookie authenticates),
// errors shown in #error, a 401 shown in #signin-needed.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const SIGNIN = 'Not signed in: run `stead ui` to open the control room signed in.';

export function showSignIn() {
  const el = document.getElementById('signin-needed');
  if (!el) return;
  el.textContent = SIGNIN;
  el.hidden = false;
}

export function showError(msg) {
  const el = document.getElementById('error');
  if (!el) return;
  el.textContent = msg;
  el.hidden = false;
}

export function clearError() {
  const el = document.getElementById('error');
  if (el) { el.textContent = ''; el.hidden = true; }
}

// report shows an error from a call, once: a 401 as the sign-in message,
// an aborted request not at all.
export function report(err) {
  if (!err || err.name === 'AbortError') return;
  if (err instanceof ApiError && err.status === 401) { showSignIn(); return; }
  showError(err.message || String(err));
}

export function url(path, query) {
  const u = new URL(path, location.origin);
  if (query) {
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined || v === null || v === '' || v === false) continue;
      u.searchParams.set(k, String(v));
    }
  }
  return u.pathname + u.search;
}

async function call(method, path, query, body, signal) {
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' }, signal };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url(path, query), init);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, `The control room's server cannot be reached (${e.message}).`);
  }
  let data = null;
  const text = await res.text();
  if (text) {
    try { data = JSON.parse(text); } catch (_) { data = null; }
  }
  if (res.status === 401) {
    showSignIn();
    throw new ApiError(401, SIGNIN);
  }
  if (!res.ok) {
    const msg = (data && typeof data.error === 'string') ? data.error : `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, `${method} ${path}: ${msg}`);
  }
  return data;
}

export const get = (path, query, signal) => call('GET', path, query, undefined, signal);
export const post = (path, body, signal) => call('POST', path, undefined, body ?? {}, signal);

// The server's info, fetched once.
let infoPromise = null;
export function info() {
  if (!infoPromise) infoPromise = get('/api/v1/info').catch((e) => { infoPromise = null; throw e; });
  return infoPromise;
}

// The whole sessions list, fetched once per page load (and again on
// refresh). Keyed by whether it holds subagents.
const lists = new Map();
export function sessionList(subagents, refresh) {
  const key = subagents ? 'sub' : 'main';
  if (refresh || !lists.has(key)) {
    const p = get('/api/v1/sessions', subagents ? { subagents: 'true' } : undefined)
      .catch((e) => { lists.delete(key); throw e; });
    lists.set(key, p);
  }
  return lists.get(key);
}

// A list row already fetched, if any.
export async function cachedRow(ref) {
  for (const p of lists.values()) {
    try {
      const d = await p;
      const row = d.sessions.find((s) => s.ref === ref);
      if (row) return row;
    } catch (_) { /* try the next */ }
  }
  return null;
}

// sessionRow finds one session's list row: from a list already
// fetched, else by asking the list for that id.
export async function sessionRow(ref, signal) {
  const cached = await cachedRow(ref);
  if (cached) return cached;
  const i = ref.indexOf(':');
  if (i < 0) return null;
  const d = await get('/api/v1/sessions', { cli: ref.slice(0, i), q: ref.slice(i + 1), subagents: 'true', limit: 20 }, signal);
  return d.sessions.find((s) => s.ref === ref) || null;
}

export function sessionPath(ref) {
  return '/api/v1/sessions/' + encodeURIComponent(ref);
}

// entries fetches one page of a session's entries.
export function entries(ref, query, signal) {
  return get(sessionPath(ref), query, signal);
}

// allEntries fetches every entry of a session, 1000 at a time; progress
// is told (loaded, total) after each page.
export async function allEntries(ref, progress, signal, max) {
  let offset = 0;
  const out = [];
  let first = null;
  for (;;) {
    const d = await get(sessionPath(ref), { offset, limit: 1000 }, signal);
    if (!first) first = d;
    out.push(...d.entries);
    if (progress) progress(out.length, d.total);
    if (d.next === undefined || d.next === null || d.entries.length === 0) break;
    if (max && out.length >= max) break;
    offset = d.next;
  }
  return { session: first.session, ref: first.ref, total: first.total, entries: out };
}

// onSessionsChanged calls fn each time the daemon says the sessions
// changed (GET /api/v1/events, one stream for the page); it returns a
// function that stops calling it. The lists fetched before are dropped.
const changeListeners = new Set();
let changes = null;
export function onSessionsChanged(fn) {
  changeListeners.add(fn);
  if (!changes) {
    changes = true;
    // Opened once the page has loaded: a stream opened before would hold
    // its load back (Chromium counts it as the page still loading).
    const open = () => setTimeout(() => {
      changes = new EventSource('/api/v1/events');
      changes.addEventListener('sessions', () => {
        lists.clear();
        for (const f of [...changeListeners]) {
          try { f(); } catch (e) { console.error(e); }
        }
      });
    }, 0);
    if (document.readyState === 'complete') open();
    else window.addEventListener('load', open, { once: true });
    // Closed when the page is left: an open stream would keep one of the
    // browser's few connections to this server for a page in its back
    // and forward cache.
    window.addEventListener('pagehide', () => {
      if (changes && changes.close) changes.close();
      changes = null;
    });
    window.addEventListener('pageshow', (ev) => {
      if (ev.persisted && !changes && changeListeners.size) {
        changes = true;
        open();
      }
    });
  }
  return () => changeListeners.delete(fn);
}

// onSessionChanged calls fn each time the session's file changes (GET
// /api/v1/sessions/{ref}/events): a CLI appended to it, whether or not
// stead runs it. It returns a function that closes the stream. Where the
// server cannot follow files, the stream ends at once and the page
// relies on onSessionsChanged.
export function onSessionChanged(ref, fn) {
  let es = null;
  let closed = false;
  const open = () => setTimeout(() => {
    if (closed) return;
    es = new EventSource(sessionPath(ref) + '/events');
    es.addEventListener('changed', () => {
      try { fn(); } catch (e) { console.error(e); }
    });
  }, 0);
  // Opened once the page has loaded, as onSessionsChanged's.
  if (document.readyState === 'complete') open();
  else window.addEventListener('load', open, { once: true });
  return () => {
    closed = true;
    if (es) es.close();
  };
}
