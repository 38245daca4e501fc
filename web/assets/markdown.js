// A small Markdown renderer that builds DOM nodes: paragraphs, headings,
// fenced and indented code, block quotes, bullet and numbered lists,
// tables, rules, and inline code, bold, italic, strike-through and links.
// It never parses HTML: markup in the text stays text. Links are made
// only for http and https URLs; images are shown as their text.

import { h, safeURL } from './dom.js';

// Past this size a text is shown as it is, not rendered.
const MAX = 200000;

export function renderMarkdown(text) {
  const root = h('div', { class: 'md' });
  text = String(text ?? '');
  if (text.length > MAX) {
    root.appendChild(h('pre', { class: 'plain', text }));
    return root;
  }
  blocks(text.replace(/\r\n?/g, '\n').split('\n'), root, 0);
  return root;
}

const fenceRe = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const headingRe = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const ruleRe = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const quoteRe = /^ {0,3}> ?(.*)$/;
const itemRe = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const tableSepRe = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function isBlank(l) { return /^\s*$/.test(l); }

function startsBlock(l) {
  return fenceRe.test(l) || headingRe.test(l) || quoteRe.test(l) || ruleRe.test(l) || itemRe.test(l);
}

function blocks(lines, parent, depth) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) { i++; continue; }
    let m;
    if ((m = fenceRe.exec(line))) {
      const fence = m[1];
      const lang = m[2];
      const body = [];
      i++;
      while (i < lines.length && !new RegExp('^ {0,3}' + fence[0] + '{' + fence.length + ',}\\s*$').test(lines[i])) body.push(lines[i++]);
      i++; // the closing fence
      const code = h('code', { text: body.join('\n') });
      if (lang) code.dataset.lang = lang;
      parent.appendChild(h('pre', { class: 'code' }, code));
      continue;
    }
    if ((m = headingRe.exec(line)) && (m[2] !== undefined || /^ {0,3}#{1,6}\s*$/.test(line))) {
      const hn = h('h' + Math.min(6, m[1].length + 2));
      inline(m[2] || '', hn);
      parent.appendChild(hn);
      i++;
      continue;
    }
    if (ruleRe.test(line)) { parent.appendChild(h('hr')); i++; continue; }
    if (quoteRe.test(line)) {
      const body = [];
      while (i < lines.length && !isBlank(lines[i])) {
        const q = quoteRe.exec(lines[i]);
        body.push(q ? q[1] : lines[i]);
        i++;
      }
      const bq = h('blockquote');
      if (depth < 8) blocks(body, bq, depth + 1); else bq.textContent = body.join('\n');
      parent.appendChild(bq);
      continue;
    }
    if ((m = itemRe.exec(line))) {
      i = list(lines, i, parent, depth);
      continue;
    }
    if (/^( {4}|\t)/.test(line)) {
      const body = [];
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i]) || (isBlank(lines[i]) && i + 1 < lines.length && /^( {4}|\t)/.test(lines[i + 1])))) {
        body.push(lines[i].replace(/^( {4}|\t)/, ''));
        i++;
      }
      parent.appendChild(h('pre', { class: 'code' }, h('code', { text: body.join('\n') })));
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && tableSepRe.test(lines[i + 1]) && lines[i + 1].includes('-')) {
      i = table(lines, i, parent);
      continue;
    }
    // A paragraph: lines up to a blank line or another block.
    const body = [line];
    i++;
    while (i < lines.length && !isBlank(lines[i]) && !startsBlock(lines[i])) body.push(lines[i++]);
    const p = h('p');
    body.forEach((l, k) => {
      if (k > 0) p.appendChild(h('br'));
      inline(l.trim(), p);
    });
    parent.appendChild(p);
  }
}

function list(lines, i, parent, depth) {
  const first = itemRe.exec(lines[i]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const el = h(ordered ? 'ol' : 'ul');
  if (ordered) {
    const start = parseInt(first[2], 10);
    if (start !== 1) el.start = start;
  }
  while (i < lines.length) {
    const m = itemRe.exec(lines[i]);
    if (!m || m[1].length !== indent || /\d/.test(m[2]) !== ordered) break;
    const body = [m[3]];
    const contentIndent = indent + m[2].length + 1;
    i++;
    while (i < lines.length) {
      const l = lines[i];
      if (isBlank(l)) {
        // A blank line continues the item when the next line is indented.
        if (i + 1 < lines.length && lines[i + 1].search(/\S/) >= contentIndent - 1 && lines[i + 1].search(/\S/) > indent) {
          body.push('');
          i++;
          continue;
        }
        break;
      }
      const lead = l.search(/\S/);
      const sub = itemRe.exec(l);
      if (sub && sub[1].length <= indent) break;
      if (lead <= indent && !sub && startsBlock(l)) break;
      body.push(lead > indent ? l.slice(Math.min(lead, contentIndent)) : l.trim());
      i++;
    }
    const li = h('li');
    if (body.length === 1 || depth >= 8) {
      inline(body.join(' '), li);
    } else {
      blocks(body, li, depth + 1);
      // A tight item: unwrap its single paragraph.
      if (li.firstChild && li.firstChild.tagName === 'P' && !body.includes('')) {
        const p = li.firstChild;
        while (p.firstChild) li.insertBefore(p.firstChild, p);
        li.removeChild(p);
      }
    }
    el.appendChild(li);
    while (i < lines.length && isBlank(lines[i]) && i + 1 < lines.length && itemRe.test(lines[i + 1]) && itemRe.exec(lines[i + 1])[1].length === indent) i++;
  }
  parent.appendChild(el);
  return i;
}

function cells(line) {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const out = [];
  let cur = '';
  for (let k = 0; k < s.length; k++) {
    if (s[k] === '\\' && s[k + 1] === '|') { cur += '|'; k++; continue; }
    if (s[k] === '|') { out.push(cur.trim()); cur = ''; continue; }
    cur += s[k];
  }
  out.push(cur.trim());
  return out;
}

function table(lines, i, parent) {
  const head = cells(lines[i]);
  const aligns = cells(lines[i + 1]).map((c) => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : ''));
  i += 2;
  const t = h('table', { class: 'md-table' });
  const tr = h('tr');
  head.forEach((c, k) => {
    const th = h('th');
    if (aligns[k]) th.className = 'al-' + aligns[k];
    inline(c, th);
    tr.appendChild(th);
  });
  t.appendChild(h('thead', null, tr));
  const tb = h('tbody');
  while (i < lines.length && !isBlank(lines[i]) && lines[i].includes('|')) {
    const row = h('tr');
    const cs = cells(lines[i]);
    for (let k = 0; k < head.length; k++) {
      const td = h('td');
      if (aligns[k]) td.className = 'al-' + aligns[k];
      inline(cs[k] ?? '', td);
      row.appendChild(td);
    }
    tb.appendChild(row);
    i++;
  }
  t.appendChild(tb);
  parent.appendChild(h('div', { class: 'table-wrap' }, t));
  return i;
}

// Inline spans, leftmost first; at one place, the first alternative.
// Underscores make emphasis only at word edges (after a space, a bracket
// or a quote), so that __init__, snake_case and window.__x stay as they are.
const U_OPEN = '(?<![^\\s(\\["\'])';
const inlineRe = new RegExp([
  '\\\\(?<esc>[\\\\`*_{}\\[\\]()#+\\-.!~|<>])',
  '(?<ticks>`+)(?<code>[\\s\\S]*?[^`])\\k<ticks>(?!`)',
  '!\\[(?<alt>[^\\]]*)\\]\\((?<src>[^)\\s]*)(?:\\s+"[^"]*")?\\)',
  '\\[(?<ltext>(?:[^\\[\\]]|\\[[^\\]]*\\])*)\\]\\(<?(?<href>(?:[^()\\s<>]|\\([^()\\s]*\\))*)>?(?:\\s+"[^"]*")?\\)',
  '<(?<auto>https?:\\/\\/[^>\\s]+)>',
  '\\*\\*\\*(?=\\S)(?<bi>[\\s\\S]*?\\S)\\*\\*\\*',
  U_OPEN + '___(?=\\S)(?<bi2>[\\s\\S]*?\\S)___(?!\\w)',
  '\\*\\*(?=\\S)(?<b>[\\s\\S]*?\\S)\\*\\*',
  U_OPEN + '__(?=\\S)(?<b2>[\\s\\S]*?\\S)__(?!\\w)',
  '\\*(?=[^\\s*])(?<i>[\\s\\S]*?[^\\s*])\\*',
  U_OPEN + '_(?=[^\\s_])(?<i2>[\\s\\S]*?[^\\s_])_(?!\\w)',
  '~~(?=\\S)(?<del>[\\s\\S]*?\\S)~~',
  '(?<url>https?:\\/\\/[^\\s<>"\'`]+)',
].join('|'), 'g');

export function inline(text, parent, depth = 0) {
  if (depth > 6) { parent.appendChild(document.createTextNode(text)); return parent; }
  let last = 0;
  const re = new RegExp(inlineRe.source, 'g');
  let m;
  while ((m = re.exec(text))) {
    const g = m.groups;
    if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
    let end = re.lastIndex;
    if (g.esc !== undefined) {
      parent.appendChild(document.createTextNode(g.esc));
    } else if (g.ticks !== undefined) {
      let code = g.code;
      if (/^ .* $/.test(code)) code = code.slice(1, -1);
      parent.appendChild(h('code', { text: code }));
    } else if (g.alt !== undefined) {
      parent.appendChild(document.createTextNode('[image' + (g.alt ? ': ' + g.alt : '') + ']'));
    } else if (g.ltext !== undefined) {
      const href = safeURL(g.href);
      if (href) {
        const a = h('a', { href, target: '_blank', rel: 'noopener noreferrer' });
        inline(g.ltext, a, depth + 1);
        parent.appendChild(a);
      } else {
        inline(g.ltext, parent, depth + 1);
        if (g.href) parent.appendChild(document.createTextNode(' (' + g.href + ')'));
      }
    } else if (g.auto !== undefined) {
      parent.appendChild(link(g.auto));
    } else if (g.bi !== undefined || g.bi2 !== undefined) {
      parent.appendChild(h('strong', null, inline(g.bi ?? g.bi2, h('em'), depth + 1)));
    } else if (g.b !== undefined || g.b2 !== undefined) {
      parent.appendChild(inline(g.b ?? g.b2, h('strong'), depth + 1));
    } else if (g.i !== undefined || g.i2 !== undefined) {
      parent.appendChild(inline(g.i ?? g.i2, h('em'), depth + 1));
    } else if (g.del !== undefined) {
      parent.appendChild(inline(g.del, h('del'), depth + 1));
    } else if (g.url !== undefined) {
      // Leave trailing punctuation out of a bare URL.
      let u = g.url;
      const trail = /[.,;:!?)\]]+$/.exec(u);
      if (trail) {
        u = u.slice(0, -trail[0].length);
        end -= trail[0].length;
        re.lastIndex = end;
      }
      parent.appendChild(link(u));
    }
    last = end;
    if (m[0].length === 0) re.lastIndex++;
  }
  if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  return parent;
}

function link(u) {
  const href = safeURL(u);
  if (!href) return document.createTextNode(u);
  return h('a', { href, target: '_blank', rel: 'noopener noreferrer', text: u });
}
