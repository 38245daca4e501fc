// DOM helpers and formatting. Everything here builds nodes with
// createElement and textContent: session text never becomes markup.

// h(tag, props, ...children) makes an element. props: class (string),
// text (textContent), attrs in `attrs` (set with setAttribute, never
// "style" or "on…"), dataset in `data`, event listeners in `on`, and
// any other key as a DOM property (href, type, checked, value, …).
// Children are nodes, strings (text nodes), arrays, or null/false.
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === undefined || v === null || v === false) continue;
      switch (k) {
        case 'class': el.className = v; break;
        case 'text': el.textContent = String(v); break;
        case 'data': for (const [dk, dv] of Object.entries(v)) if (dv !== undefined && dv !== null) el.dataset[dk] = String(dv); break;
        case 'attrs':
          for (const [ak, av] of Object.entries(v)) {
            if (av === undefined || av === null || av === false) continue;
            if (/^on/i.test(ak) || ak.toLowerCase() === 'style') throw new Error('h: refusing attribute ' + ak);
            el.setAttribute(ak, av === true ? '' : String(av));
          }
          break;
        case 'on': for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn); break;
        default:
          if (/^on/i.test(k) || k === 'style' || k === 'innerHTML' || k === 'outerHTML') throw new Error('h: refusing property ' + k);
          el[k] = v;
      }
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

// safeURL returns the URL when its scheme is http or https, else null.
export function safeURL(s) {
  try {
    const u = new URL(String(s).trim());
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.href;
  } catch (_) { /* not a URL */ }
  return null;
}

// extLink is a link that leaves the control room (http/https only).
export function extLink(url, text) {
  const href = safeURL(url);
  if (!href) return document.createTextNode(text ?? String(url));
  return h('a', { href, target: '_blank', rel: 'noopener noreferrer', text: text ?? url });
}

export function sessionHash(ref, at) {
  return '#/session/' + encodeURIComponent(ref) + (at ? '?at=' + encodeURIComponent(at) : '');
}

export function sessionLink(ref, text, at) {
  return h('a', { href: sessionHash(ref, at), text: text ?? ref });
}

// Formatting.

export function fmtInt(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return '—';
  return Math.round(n).toLocaleString('en-US');
}

export function fmtTokens(n) {
  if (n === null || n === undefined) return '—';
  if (n < 1000) return String(n);
  if (n < 1e6) return (n / 1e3).toFixed(n < 1e4 ? 1 : 0) + 'k';
  if (n < 1e9) return (n / 1e6).toFixed(n < 1e7 ? 2 : 1) + 'M';
  return (n / 1e9).toFixed(2) + 'G';
}

export function fmtCost(c) {
  if (c === null || c === undefined) return '—';
  if (c === 0) return '$0';
  if (c >= 100) return '$' + c.toFixed(0);
  if (c >= 1) return '$' + c.toFixed(2);
  if (c >= 0.01) return '$' + c.toFixed(3);
  return '$' + c.toFixed(4);
}

export function fmtBytes(n) {
  if (n === null || n === undefined) return '—';
  if (n < 1024) return n + ' B';
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KB';
  if (n < 1024 ** 3) return (n / 1024 ** 2).toFixed(1) + ' MB';
  return (n / 1024 ** 3).toFixed(2) + ' GB';
}

const pad = (n) => String(n).padStart(2, '0');

export function fmtDate(iso, withSeconds) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  let s = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  if (withSeconds) s += ':' + pad(d.getSeconds());
  return s;
}

export function fmtTime(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function durationMs(start, end) {
  if (!start || !end) return null;
  const ms = new Date(end) - new Date(start);
  return Number.isNaN(ms) ? null : Math.max(0, ms);
}

export function fmtDuration(ms) {
  if (ms === null || ms === undefined) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return s + 's';
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${pad(s % 60)}s`;
  const hr = Math.floor(m / 60);
  if (hr < 24) return `${hr}h ${pad(m % 60)}m`;
  return `${Math.floor(hr / 24)}d ${hr % 24}h`;
}

// localDate parses a YYYY-MM-DD as the start of that day, local time.
export function localDate(s, endOfDay) {
  if (!s) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return null;
  const d = new Date(+m[1], +m[2] - 1, +m[3]);
  if (endOfDay) d.setDate(d.getDate() + 1);
  return d.getTime();
}

export function usageTotal(u) {
  if (!u) return 0;
  return (u.input || 0) + (u.output || 0) + (u.cacheRead || 0) + (u.cacheWrite || 0);
}

export function fmtUsage(u) {
  if (!u) return '';
  const parts = [];
  if (u.input) parts.push('in ' + fmtTokens(u.input));
  if (u.output) parts.push('out ' + fmtTokens(u.output));
  if (u.cacheRead) parts.push('cache read ' + fmtTokens(u.cacheRead));
  if (u.cacheWrite) parts.push('cache write ' + fmtTokens(u.cacheWrite));
  if (u.reasoning) parts.push('reasoning ' + fmtTokens(u.reasoning));
  return parts.join(' · ');
}

// parseHashQuery reads "a=1&b=2" into a URLSearchParams.
export function params(query) {
  return new URLSearchParams(query || '');
}

export function debounce(fn, ms) {
  let t = 0;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}
