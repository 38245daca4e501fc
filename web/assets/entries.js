// Rendering universal entries: the timeline, the compare columns and a
// run's live entries share this. Every text is set as text; Markdown
// goes through renderMarkdown, which builds nodes.

import { h, clear, fmtTime, fmtUsage, fmtCost, fmtDate, fmtBytes, fmtInt, sessionLink, extLink } from './dom.js';
import { renderMarkdown } from './markdown.js';

// Output and inputs longer than this many lines, or characters, are
// folded.
export const FOLD_LINES = 6;
export const FOLD_CHARS = 1000;
// Diffs longer than this many lines are folded.
const FOLD_DIFF = 60;

const TYPE_LABEL = {
  user: 'User', assistant: 'Assistant', tool_call: 'Tool', tool_result: 'Result', system: 'System',
};

function str(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  try { return JSON.stringify(v, null, 2); } catch (_) { return String(v); }
}

function firstLine(s, max = 120) {
  s = str(s).trim();
  const nl = s.indexOf('\n');
  let l = nl >= 0 ? s.slice(0, nl) : s;
  if (l.length > max) l = l.slice(0, max) + '…';
  else if (nl >= 0) l += ' …';
  return l;
}

// folded shows text in a <pre>: its first n lines and no more than
// FOLD_CHARS characters (an output of one long line is as tall as a
// thousand lines), the rest in a <details> to open.
export function folded(text, cls, n = FOLD_LINES) {
  text = str(text);
  const wrap = h('div', { class: 'fold' });
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const few = lines.length <= n + 1;
  let head = lines.slice(0, few ? lines.length : n).join('\n');
  let rest = few ? '' : lines.slice(n).join('\n');
  let summary = `${lines.length - n} more line${lines.length - n === 1 ? '' : 's'}`;
  if (head.length > FOLD_CHARS * 1.25) {
    const all = few ? head : head + '\n' + rest;
    let cut = FOLD_CHARS;
    const c = all.charCodeAt(cut - 1);
    if (c >= 0xd800 && c <= 0xdbff) cut--; // not between a surrogate pair's halves
    head = all.slice(0, cut);
    rest = all.slice(cut);
    const more = rest.split('\n').length - 1;
    summary = `${fmtInt(rest.length)} more characters` + (more ? `, ${more} more line${more === 1 ? '' : 's'}` : '');
  }
  if (!rest) {
    wrap.appendChild(h('pre', { class: cls, text: head }));
    return wrap;
  }
  wrap.appendChild(h('pre', { class: cls + ' fold-head', text: head }));
  // A closed <details> is not laid out: its text costs little until opened.
  wrap.appendChild(h('details', { class: 'fold-rest' },
    h('summary', { text: summary }),
    h('pre', { class: cls, text: rest })));
  return wrap;
}

// Diffs.

function diffLines(pre, lines, cls, sign) {
  for (const l of lines) pre.appendChild(h('span', { class: 'diff-line ' + cls, text: sign + l }));
}

function splitLines(s) {
  const lines = str(s).split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function diffBox(file, fill) {
  const box = h('div', { class: 'diff' });
  if (file) box.appendChild(h('div', { class: 'diff-file', text: file }));
  const pre = h('pre', { class: 'diff-body' });
  fill(pre);
  const n = pre.childElementCount;
  if (n > FOLD_DIFF) {
    // Keep the first lines in view, the rest behind a toggle.
    const rest = h('pre', { class: 'diff-body' });
    while (pre.childElementCount > FOLD_DIFF) rest.insertBefore(pre.lastChild, rest.firstChild);
    box.appendChild(pre);
    box.appendChild(h('details', { class: 'fold-rest' }, h('summary', { text: `${n - FOLD_DIFF} more lines` }), rest));
  } else {
    box.appendChild(pre);
  }
  return box;
}

export function editDiff(file, oldS, newS) {
  return diffBox(file, (pre) => {
    diffLines(pre, splitLines(oldS), 'diff-del', '-');
    diffLines(pre, splitLines(newS), 'diff-add', '+');
  });
}

export function writeDiff(file, content) {
  return diffBox(file, (pre) => diffLines(pre, splitLines(content), 'diff-add', '+'));
}

export function patchDiff(patch) {
  return diffBox(null, (pre) => {
    for (const l of splitLines(patch)) {
      let cls = 'diff-ctx';
      if (/^(\*\*\* |@@|diff --git|index |--- |\+\+\+ )/.test(l)) cls = 'diff-hunk';
      else if (l.startsWith('+')) cls = 'diff-add';
      else if (l.startsWith('-')) cls = 'diff-del';
      pre.appendChild(h('span', { class: 'diff-line ' + cls, text: l }));
    }
  });
}

// Tool inputs.

const pick = (o, ...keys) => {
  if (!o || typeof o !== 'object') return undefined;
  for (const k of keys) if (o[k] !== undefined && o[k] !== null && o[k] !== '') return o[k];
  return undefined;
};

const PATH_KEYS = ['file_path', 'filePath', 'path', 'notebook_path', 'absolute_path', 'file'];

export function toolPath(input) {
  const p = pick(input, ...PATH_KEYS);
  return typeof p === 'string' ? p : undefined;
}

export function commandOf(input) {
  if (typeof input === 'string') return input;
  let c = pick(input, 'command', 'cmd', 'script');
  if (Array.isArray(c)) {
    if (c.length === 3 && /(^|\/)(ba|z)?sh$/.test(c[0]) && /^-l?c$/.test(c[1])) c = c[2];
    else c = c.join(' ');
  }
  return c === undefined ? undefined : str(c);
}

export function patchOf(entry) {
  const inp = entry.input;
  if (typeof inp === 'string' && /\*\*\* Begin Patch|^diff --git|^@@/m.test(inp)) return inp;
  const p = pick(inp, 'input', 'patch');
  if (typeof p === 'string' && (entry.originalTool === 'apply_patch' || /\*\*\* Begin Patch/.test(p))) return p;
  return undefined;
}

// filesOf lists the files an edit or write changes (for compare's
// "files changed").
export function filesOf(entry) {
  if (entry.type !== 'tool_call') return [];
  const patch = patchOf(entry);
  if (patch) {
    const out = [];
    for (const m of patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$|^\+\+\+ b\/(.+)$/gm)) out.push((m[1] || m[2] || m[3]).trim());
    return out;
  }
  if (entry.tool !== 'edit' && entry.tool !== 'write' && entry.tool !== 'notebook') return [];
  const p = toolPath(entry.input);
  return p ? [p] : [];
}

function toolSummary(e) {
  const inp = e.input;
  switch (e.tool) {
    case 'bash': return firstLine(commandOf(inp) || '');
    case 'read': case 'write': case 'edit': case 'notebook': case 'image': {
      const patch = patchOf(e);
      if (patch) return filesOf(e).join(', ');
      return toolPath(inp) || '';
    }
    case 'search': case 'glob': case 'list': {
      const p = pick(inp, 'pattern', 'query', 'regex', 'glob');
      const where = pick(inp, 'path', 'dir_path', 'directory');
      return [p, where].filter((x) => typeof x === 'string').join('  in ');
    }
    case 'task': return firstLine(pick(inp, 'description', 'subagent_type', 'prompt') || '');
    case 'web_fetch': return str(pick(inp, 'url') || '');
    case 'web_search': return str(pick(inp, 'query') || '');
    case 'skill': return str(pick(inp, 'skill', 'name', 'command') || '');
    default: return '';
  }
}

function kv(label, value) {
  return h('div', { class: 'kv' }, h('span', { class: 'k', text: label }), h('span', { class: 'v', text: value }));
}

export function renderInput(e) {
  const inp = e.input;
  const box = h('div', { class: 'tool-input' });
  const patch = patchOf(e);
  if (patch) {
    box.appendChild(patchDiff(patch));
    return box;
  }
  if (inp === undefined || inp === null) return box;
  if (typeof inp !== 'object') {
    box.appendChild(folded(str(inp), 'code'));
    return box;
  }
  switch (e.tool) {
    case 'bash': {
      const cmd = commandOf(inp);
      if (cmd !== undefined) {
        const desc = pick(inp, 'description');
        if (desc) box.appendChild(h('div', { class: 'muted desc', text: str(desc) }));
        box.appendChild(folded('$ ' + cmd, 'code cmd', 12));
        return box;
      }
      break;
    }
    case 'edit': {
      const file = toolPath(inp);
      const edits = Array.isArray(inp.edits) ? inp.edits : null;
      if (edits) {
        for (const ed of edits) box.appendChild(editDiff(file, pick(ed, 'old_string', 'oldString', 'old_str') ?? '', pick(ed, 'new_string', 'newString', 'new_str') ?? ''));
        return box;
      }
      const o = pick(inp, 'old_string', 'oldString', 'old_str', 'old');
      const n = pick(inp, 'new_string', 'newString', 'new_str', 'new', 'content');
      if (o !== undefined || n !== undefined) {
        box.appendChild(editDiff(file, o ?? '', n ?? ''));
        return box;
      }
      break;
    }
    case 'write': {
      const c = pick(inp, 'content', 'text', 'contents');
      if (c !== undefined) {
        box.appendChild(writeDiff(toolPath(inp), c));
        return box;
      }
      break;
    }
    case 'notebook': {
      const src = pick(inp, 'new_source', 'source');
      if (src !== undefined) {
        box.appendChild(writeDiff(toolPath(inp), src));
        return box;
      }
      break;
    }
    case 'read': {
      const p = toolPath(inp);
      if (p) {
        // The path is in the head; what part of the file was read, here.
        const extra = [];
        for (const k of ['offset', 'limit', 'start_line', 'end_line', 'pages']) if (inp[k] !== undefined) extra.push(`${k} ${str(inp[k])}`);
        if (extra.length) box.appendChild(h('div', { class: 'muted', text: extra.join(', ') }));
        return box;
      }
      break;
    }
    case 'todo': {
      const todos = pick(inp, 'todos', 'plan', 'items');
      if (Array.isArray(todos)) {
        const ul = h('ul', { class: 'todos' });
        for (const t of todos) {
          const status = str(pick(t, 'status') || '');
          ul.appendChild(h('li', { class: 'todo todo-' + status.replace(/[^a-z_]/gi, '') },
            h('span', { class: 'todo-mark', text: status === 'completed' ? '☑' : status === 'in_progress' ? '◐' : '☐' }),
            ' ', str(pick(t, 'content', 'step', 'text', 'title') ?? t)));
        }
        box.appendChild(ul);
        return box;
      }
      break;
    }
    case 'task': {
      const desc = pick(inp, 'description');
      const type = pick(inp, 'subagent_type', 'agent');
      const prompt = pick(inp, 'prompt');
      if (desc || prompt) {
        if (type) box.appendChild(kv('agent', str(type)));
        if (desc) box.appendChild(kv('task', str(desc)));
        if (prompt) {
          const d = h('details', { class: 'task-prompt' }, h('summary', { text: 'prompt' }));
          d.appendChild(renderMarkdown(str(prompt)));
          box.appendChild(d);
        }
        return box;
      }
      break;
    }
    case 'web_search':
      if (pick(inp, 'query') !== undefined && Object.keys(inp).every((k) => k === 'query' || k === 'type')) return box; // in the head
      break;
    case 'web_fetch': {
      const u = pick(inp, 'url');
      if (u) {
        box.appendChild(h('div', { class: 'path' }, extLink(str(u))));
        const p = pick(inp, 'prompt');
        if (p) box.appendChild(h('div', { class: 'muted', text: str(p) }));
        return box;
      }
      break;
    }
  }
  // Anything else: its input as JSON.
  box.appendChild(folded(JSON.stringify(inp, null, 2), 'code json'));
  return box;
}

// The renderer.

// An EntryRenderer turns entries into elements, keeping each tool call
// with its result. raw(entry, index) returns a promise of the entry's
// native record, or is absent (no raw toggle); cli is the session's CLI
// (for links to the sessions entries were copied from); ids false leaves
// out the elements' ids (e-<index>), for pages showing several sessions;
// fork(entry, index), when given, is offered on each entry (a run from the
// session cut after it). whole(entry, index) fetches an entry whose texts
// the server cut (its "clipped" member: a text over 64 KB) in full, for
// its "show all".
export class EntryRenderer {
  constructor({ raw, cli, ids = true, fork, whole } = {}) {
    this.raw = raw;
    this.whole = whole;
    this.fork = fork;
    this.ids = ids;
    this.cli = cli;
    this.calls = new Map(); // call id → its .tool-call element
    this.orphans = new Map(); // call id → a result rendered before its call
    this.byId = new Map(); // entry id → {entry, el}
  }

  // render returns the entry's element to place in the flow, or null
  // when it went into its tool call's element.
  render(e, index) {
    const el = this.element(e, index);
    this.byId.set(e.id, { entry: e, el });
    if (e.type === 'tool_result' && e.callId) {
      const call = this.calls.get(e.callId);
      if (call) {
        call.querySelector(':scope > .tool-result-slot').appendChild(el);
        call.classList.toggle('has-result', true);
        return null;
      }
      this.orphans.set(e.callId, el);
      el.classList.add('orphan');
      return el;
    }
    if (e.type === 'tool_call') {
      this.calls.set(e.id, el);
      const orphan = this.orphans.get(e.id);
      if (orphan) {
        this.orphans.delete(e.id);
        orphan.classList.remove('orphan');
        el.querySelector(':scope > .tool-result-slot').appendChild(orphan);
        el.classList.add('has-result');
      }
    }
    return el;
  }

  element(e, index) {
    const type = String(e.type || 'unknown');
    const classes = ['entry', 'entry-' + type.replace(/[^a-z_]/gi, '')];
    if (type === 'tool_call') classes.push('tool-call');
    if (type === 'tool_result') classes.push('tool-result');
    if (e.kind) classes.push('kind-' + String(e.kind).replace(/[^a-z_]/gi, ''));
    if (e.status) classes.push('status-' + String(e.status).replace(/[^a-z_]/gi, ''));
    if (isError(e)) classes.push('err');
    if (e.sidechain) classes.push('sidechain');
    const el = h('div', { class: classes.join(' '), data: { entryId: e.id, type, index } });
    if (this.ids && index !== undefined && index !== null) el.id = 'e-' + index;
    el.appendChild(this.head(e, index));
    el.appendChild(this.body(e));
    if (e.clipped) el.appendChild(this.clipNote(e, index));
    if (type === 'tool_call') el.appendChild(h('div', { class: 'tool-result-slot' }));
    return el;
  }

  // clipNote says which of an entry's texts the server cut and how long
  // each is, with a "show all" that puts the whole entry's body in place.
  clipNote(e, index) {
    const sizes = Object.entries(e.clipped).map(([field, n]) => field + ' ' + fmtBytes(n)).join(', ');
    const note = h('div', { class: 'clip-note muted', text: 'Shortened to its first 64 KB: ' + sizes + '. ' });
    if (this.whole && index !== undefined && index !== null) {
      const btn = h('button', { type: 'button', class: 'link show-all', text: 'show all' });
      btn.addEventListener('click', async (ev) => {
        ev.stopPropagation();
        btn.disabled = true;
        btn.textContent = 'loading…';
        try {
          const full = await this.whole(e, index);
          const el = note.parentNode;
          el.replaceChild(this.body(full), el.querySelector(':scope > .entry-body'));
          note.remove();
        } catch (err) {
          btn.disabled = false;
          btn.textContent = 'show all';
          note.appendChild(h('span', { class: 'err', text: ' Could not load it: ' + (err.message || err) }));
        }
      });
      note.appendChild(btn);
    }
    return note;
  }

  head(e, index) {
    const head = h('div', { class: 'entry-head' });
    let label = TYPE_LABEL[e.type] || String(e.type);
    if (e.type === 'tool_call') label = e.originalTool || e.tool || 'tool';
    if (e.type === 'system' && e.kind) label = 'System · ' + e.kind;
    if (e.type === 'user' && e.kind) label = 'User · ' + e.kind;
    head.appendChild(h('span', { class: 'role', text: label }));
    if (e.type === 'tool_call') {
      if (e.tool && e.originalTool && e.tool !== e.originalTool.toLowerCase()) head.appendChild(h('span', { class: 'tag', text: e.tool }));
      const sum = toolSummary(e);
      if (sum) head.appendChild(h('span', { class: 'summary', text: sum }));
    }
    if (e.status && e.status !== 'ok') head.appendChild(h('span', { class: 'badge status status-' + e.status, text: e.status }));
    if (e.type === 'tool_result' && e.success === false && !e.status) head.appendChild(h('span', { class: 'badge status status-error', text: 'failed' }));
    if (e.sidechain) head.appendChild(h('span', { class: 'tag', text: 'sidechain' }));
    if (e.subagent && e.subagent.cli && e.subagent.id) {
      head.appendChild(sessionLink(e.subagent.cli + ':' + e.subagent.id, (e.subagent.kind || 'subagent') + ' ↗'));
    }
    if (e.origin && this.cli) {
      const a = sessionLink(this.cli + ':' + e.origin, 'copied ↗');
      a.classList.add('origin');
      a.title = 'copied from ' + e.origin;
      head.appendChild(a);
    }
    head.appendChild(h('span', { class: 'spacer' }));
    if (e.usage) head.appendChild(h('span', { class: 'tokens', text: fmtUsage(e.usage), title: 'tokens of this response' }));
    if (typeof e.cost === 'number') head.appendChild(h('span', { class: 'cost', text: fmtCost(e.cost), title: 'the cost of this response at list prices' }));
    if (e.model && (e.type === 'assistant' || e.usage)) head.appendChild(h('span', { class: 'model', text: e.model }));
    if (e.timestamp) head.appendChild(h('time', { class: 'time', text: fmtTime(e.timestamp), title: fmtDate(e.timestamp, true), attrs: { datetime: e.timestamp } }));
    if (this.fork && e.type !== 'tool_result') {
      const btn = h('button', { type: 'button', class: 'fork-here link', text: 'fork', title: 'start a run from the session up to here' });
      btn.addEventListener('click', (ev) => { ev.stopPropagation(); this.fork(e, index); });
      head.appendChild(btn);
    }
    if (this.raw && index !== undefined && index !== null) {
      const btn = h('button', { type: 'button', class: 'raw-toggle link', text: 'raw', title: 'the native record' });
      btn.addEventListener('click', (ev) => { ev.stopPropagation(); this.toggleRaw(btn, e, index); });
      head.appendChild(btn);
    }
    return head;
  }

  async toggleRaw(btn, e, index) {
    const el = btn.closest('.entry');
    let pre = el.querySelector(':scope > .raw');
    if (pre) { pre.hidden = !pre.hidden; btn.classList.toggle('on', !pre.hidden); return; }
    pre = h('pre', { class: 'raw code', text: 'loading…' });
    el.insertBefore(pre, el.children[1] || null);
    btn.classList.add('on');
    try {
      const native = await this.raw(e, index);
      if (!native) pre.textContent = 'No native record on this entry: the record that produced it is on an earlier entry.';
      else pre.textContent = JSON.stringify(native, null, 2);
    } catch (err) {
      pre.textContent = 'Could not load the native record: ' + (err.message || err);
      pre.classList.add('err');
    }
  }

  body(e) {
    const body = h('div', { class: 'entry-body' });
    switch (e.type) {
      case 'user':
        if (e.kind === 'meta') {
          body.appendChild(h('details', { class: 'meta' }, h('summary', { text: firstLine(e.content) }), h('pre', { class: 'plain', text: str(e.content) })));
        } else if (e.kind === 'command') {
          body.appendChild(h('pre', { class: 'code cmd', text: str(e.content) }));
        } else if (e.kind === 'interrupt') {
          body.appendChild(h('div', { class: 'muted', text: str(e.content) || 'interrupted' }));
        } else {
          body.appendChild(renderMarkdown(str(e.content)));
        }
        break;
      case 'assistant':
        if (e.thinking) {
          body.appendChild(h('details', { class: 'thinking' }, h('summary', { text: 'Thinking' }), renderMarkdown(str(e.thinking))));
        } else if (Array.isArray(e.reasoning) && e.reasoning.length && !e.content) {
          body.appendChild(h('div', { class: 'muted', text: 'Thinking (not readable: encrypted or redacted)' }));
        }
        if (e.content) body.appendChild(renderMarkdown(str(e.content)));
        break;
      case 'system':
        if (e.kind === 'turn') {
          body.appendChild(h('div', { class: 'turn-line', text: str(e.content) }));
        } else if (e.kind === 'error') {
          body.appendChild(h('pre', { class: 'plain err', text: str(e.content) }));
        } else {
          body.appendChild(h('details', { class: 'system-text' }, h('summary', { text: firstLine(e.content) }), h('pre', { class: 'plain', text: str(e.content) })));
        }
        break;
      case 'tool_call':
        body.appendChild(renderInput(e));
        break;
      case 'tool_result': {
        const out = str(e.output);
        if (out) body.appendChild(folded(out, 'output'));
        if (e.error) body.appendChild(folded(str(e.error), 'output err'));
        if (!out && !e.error) body.appendChild(h('div', { class: 'muted', text: '(no output)' }));
        break;
      }
      default:
        if (e.content) body.appendChild(h('pre', { class: 'plain', text: str(e.content) }));
    }
    if (Array.isArray(e.attachments) && e.attachments.length) {
      const ul = h('ul', { class: 'attachments' });
      for (const a of e.attachments) {
        ul.appendChild(h('li', { text: 'attachment: ' + [a.type, a.mediaType, a.name || a.path].filter(Boolean).join(' · ') }));
      }
      body.appendChild(ul);
    }
    return body;
  }

  // update applies a live update ({entryId, status, usage, model,
  // subagent}) to an entry already rendered.
  update(u) {
    const it = this.byId.get(u.entryId);
    if (!it) return;
    const e = it.entry;
    if (u.status) e.status = u.status;
    if (u.usage) e.usage = u.usage;
    if (u.model) e.model = u.model;
    if (u.subagent) e.subagent = u.subagent;
    const el = it.el;
    for (const c of [...el.classList]) if (c.startsWith('status-')) el.classList.remove(c);
    if (e.status) el.classList.add('status-' + String(e.status).replace(/[^a-z_]/gi, ''));
    el.classList.toggle('err', isError(e));
    const old = el.querySelector(':scope > .entry-head');
    const index = el.dataset.index === undefined ? undefined : Number(el.dataset.index);
    el.replaceChild(this.head(e, index), old);
  }
}

export function isError(e) {
  if (e.status === 'interrupted' || e.status === 'pending') return false;
  return e.status === 'error' || e.status === 'denied' || (e.type === 'tool_result' && e.success === false) || e.kind === 'error';
}

// isPrompt reports whether an entry starts a turn: a user prompt that is
// not meta (nor an interruption).
export function isPrompt(e) {
  return e.type === 'user' && e.kind !== 'meta' && e.kind !== 'interrupt' && !e.sidechain;
}

export { clear };
