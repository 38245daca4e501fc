// #/usage[?by=day|week|month][&split=cli|model|project][&metric=tokens|cost][&since=…][&until=…]:
// tokens and cost over time, as stacked bars (plain elements sized
// through the CSSOM) and tables.

import { get, report } from './api.js';
import { h, clear, fmtTokens, fmtCost, fmtInt } from './dom.js';

const COLORS = 10; // .c0 … .c9; the last is "other"

export function mount(view, route) {
  const p = route.params;
  const by = ['day', 'week', 'month'].includes(p.get('by')) ? p.get('by') : 'day';
  const split = ['cli', 'model', 'project'].includes(p.get('split')) ? p.get('split') : 'cli';
  const metric = p.get('metric') === 'cost' ? 'cost' : 'tokens';
  const since = p.get('since') || '';
  const until = p.get('until') || '';
  const ctl = new AbortController();
  let alive = true;

  const sel = (id, value, options) => h('select', { id }, options.map(([v, label]) => h('option', { value: v, text: label, selected: v === value })));
  const bySel = sel('u-by', by, [['day', 'by day'], ['week', 'by week'], ['month', 'by month']]);
  const splitSel = sel('u-split', split, [['cli', 'per CLI'], ['model', 'per model'], ['project', 'per project']]);
  const metricSel = sel('u-metric', metric, [['tokens', 'tokens'], ['cost', 'cost']]);
  const sinceIn = h('input', { type: 'date', id: 'u-since', value: since });
  const untilIn = h('input', { type: 'date', id: 'u-until', value: until });
  const go = () => {
    const sp = new URLSearchParams({ by: bySel.value, split: splitSel.value, metric: metricSel.value });
    if (sinceIn.value) sp.set('since', sinceIn.value);
    if (untilIn.value) sp.set('until', untilIn.value);
    location.hash = '#/usage?' + sp.toString();
  };
  for (const el of [bySel, splitSel, metricSel, sinceIn, untilIn]) el.addEventListener('change', go);

  const status = h('div', { class: 'muted', text: 'Loading…' });
  const chart = h('div', { id: 'usage-chart', class: 'chart' });
  const legend = h('div', { class: 'legend' });
  const tables = h('div', { class: 'usage-tables' });
  view.append(
    h('h1', { text: 'Usage' }),
    h('div', { class: 'toolbar' }, h('div', { class: 'row filters' },
      h('label', null, 'Show ', metricSel), bySel, splitSel,
      h('label', null, 'Since ', sinceIn), h('label', null, 'Until ', untilIn))),
    status, chart, legend, h('div', { class: 'muted tz' }), tables);

  get('/api/v1/usage', { by, split, since, until }, ctl.signal).then((d) => {
    if (!alive) return;
    status.textContent = '';
    draw(d.rows || [], metric, split, d.by || by, chart, legend, tables, status);
    if (d.timeZone) view.querySelector('.tz').textContent = `Periods in ${d.timeZone}.`;
  }).catch((e) => {
    if (!alive) return;
    status.textContent = 'Usage could not be read.';
    report(e);
  });

  return () => { alive = false; ctl.abort(); };
}

function valueOf(r, metric) {
  if (metric === 'cost') return r.cost || 0;
  return r.total ?? ((r.tokens && (r.tokens.input || 0) + (r.tokens.output || 0) + (r.tokens.cacheRead || 0) + (r.tokens.cacheWrite || 0)) || 0);
}

// label names a period (its first day, YYYY-MM-DD) shortly.
function label(period, by) {
  if (by === 'month') return period.slice(0, 7);
  return /^\d{4}-\d{2}-\d{2}$/.test(period) ? period.slice(5) : period;
}

// fill adds the periods without usage between the first and the last,
// so that the bars keep to the calendar (at most 2,000 periods).
function fill(periods, by) {
  const re = /^(\d{4})-(\d{2})-(\d{2})$/;
  if (periods.length < 2 || !periods.every((p) => re.test(p))) return periods;
  const day = (p) => { const m = re.exec(p); return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])); };
  const fmt = (d) => d.toISOString().slice(0, 10);
  const last = periods[periods.length - 1];
  const out = [];
  for (let d = day(periods[0]); fmt(d) <= last && out.length < 2000;) {
    out.push(fmt(d));
    if (by === 'month') d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
    else d = new Date(d.getTime() + (by === 'week' ? 7 : 1) * 86400000);
  }
  // Periods that do not fall on the steps (another week start) are kept.
  const all = new Set([...out, ...periods]);
  return out.length >= 2000 ? periods : [...all].sort();
}

function draw(rows, metric, split, by, chart, legend, tables, status) {
  const fmt = metric === 'cost' ? fmtCost : fmtTokens;
  if (!rows.length) {
    status.textContent = 'No usage in this period.';
    return;
  }
  // Keys by their total, the largest first; past the ninth they are
  // "other".
  const keyTotal = new Map();
  for (const r of rows) keyTotal.set(r.key, (keyTotal.get(r.key) || 0) + valueOf(r, metric));
  const keys = [...keyTotal.keys()].sort((a, b) => keyTotal.get(b) - keyTotal.get(a));
  const colour = new Map();
  keys.forEach((k, i) => colour.set(k, i < COLORS - 1 ? i : COLORS - 1));
  const periods = fill([...new Set(rows.map((r) => r.period))].sort(), by);
  const byPeriod = new Map(periods.map((p) => [p, []]));
  for (const r of rows) byPeriod.get(r.period).push(r);
  let max = 0;
  for (const list of byPeriod.values()) max = Math.max(max, list.reduce((a, r) => a + valueOf(r, metric), 0));
  if (metric === 'cost' && !rows.some((r) => r.cost !== null && r.cost !== undefined)) {
    status.textContent = 'No prices are known for these models: choose tokens.';
  }

  clear(chart);
  const axis = h('div', { class: 'axis' },
    h('span', { class: 'tick t100', text: fmt(max) }),
    h('span', { class: 'tick t50', text: fmt(max / 2) }),
    h('span', { class: 'tick t0', text: metric === 'cost' ? '$0' : '0' }));
  const bars = h('div', { class: 'bars' + (periods.length > 40 ? ' dense' : '') });
  for (const period of periods) {
    const list = byPeriod.get(period).slice().sort((a, b) => colour.get(b.key) - colour.get(a.key));
    const sum = list.reduce((a, r) => a + valueOf(r, metric), 0);
    const stack = h('div', { class: 'stack' });
    stack.style.height = (max ? (sum / max) * 100 : 0) + '%';
    for (const r of list) {
      const v = valueOf(r, metric);
      if (!v) continue;
      const seg = h('div', { class: 'seg c' + colour.get(r.key), title: `${period} · ${r.key}: ${fmt(v)}${metric === 'tokens' && r.cost != null ? ' · ' + fmtCost(r.cost) : ''} · ${fmtInt(r.sessions)} sessions` });
      seg.style.height = (sum ? (v / sum) * 100 : 0) + '%';
      stack.appendChild(seg);
    }
    bars.appendChild(h('div', { class: 'bar', data: { period }, title: `${by === 'week' ? 'week of ' : ''}${by === 'month' ? period.slice(0, 7) : period}: ${fmt(sum)}` },
      h('div', { class: 'bar-area' }, stack),
      h('div', { class: 'bar-label', text: label(period, by) })));
  }
  chart.append(axis, h('div', { class: 'bars-scroll' }, bars));

  clear(legend);
  keys.slice(0, COLORS - 1).forEach((k) => legend.appendChild(h('span', { class: 'legend-item' },
    h('span', { class: 'swatch c' + colour.get(k) }), h('span', { text: k || '(none)' }), h('span', { class: 'muted', text: ' ' + fmt(keyTotal.get(k)) }))));
  if (keys.length > COLORS - 1) {
    const rest = keys.slice(COLORS - 1).reduce((a, k) => a + keyTotal.get(k), 0);
    legend.appendChild(h('span', { class: 'legend-item' }, h('span', { class: 'swatch c' + (COLORS - 1) }),
      h('span', { text: `${keys.length - COLORS + 1} others` }), h('span', { class: 'muted', text: ' ' + fmt(rest) })));
  }

  clear(tables);
  // Totals per key.
  const agg = new Map();
  for (const r of rows) {
    const a = agg.get(r.key) || { key: r.key, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, cost: null, sessions: 0 };
    const t = r.tokens || {};
    a.input += t.input || 0; a.output += t.output || 0; a.cacheRead += t.cacheRead || 0; a.cacheWrite += t.cacheWrite || 0;
    a.total += valueOf(r, 'tokens');
    if (r.cost !== null && r.cost !== undefined) a.cost = (a.cost || 0) + r.cost;
    a.sessions += r.sessions || 0;
    agg.set(r.key, a);
  }
  const sum = { key: 'All', input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, cost: null, sessions: 0 };
  for (const a of agg.values()) {
    for (const k of ['input', 'output', 'cacheRead', 'cacheWrite', 'total', 'sessions']) sum[k] += a[k];
    if (a.cost !== null) sum.cost = (sum.cost || 0) + a.cost;
  }
  const cols = ['Input', 'Output', 'Cache read', 'Cache write', 'Total', 'Cost', 'Sessions'];
  const cells = (a) => [fmtTokens(a.input), fmtTokens(a.output), fmtTokens(a.cacheRead), fmtTokens(a.cacheWrite), fmtTokens(a.total), fmtCost(a.cost), fmtInt(a.sessions)];
  const totals = h('table', { class: 'data-table', id: 'usage-totals' },
    h('thead', null, h('tr', null, h('th', { text: split }), cols.map((c) => h('th', { class: 'num', text: c })))),
    h('tbody', null, keys.map((k) => {
      const a = agg.get(k);
      return h('tr', null, h('td', null, h('span', { class: 'swatch c' + colour.get(k) }), ' ', k || '(none)'), cells(a).map((v) => h('td', { class: 'num', text: v })));
    })),
    h('tfoot', null, h('tr', null, h('th', { text: 'All' }), cells(sum).map((v) => h('th', { class: 'num', text: v })))));
  const detail = h('table', { class: 'data-table', id: 'usage-rows' },
    h('thead', null, h('tr', null, h('th', { text: 'Period' }), h('th', { text: split }), cols.map((c) => h('th', { class: 'num', text: c })))),
    h('tbody', null, periods.slice().reverse().flatMap((p) => byPeriod.get(p).map((r) => {
      const t = r.tokens || {};
      return h('tr', null, h('td', { text: p }), h('td', { text: r.key || '(none)' }),
        [fmtTokens(t.input || 0), fmtTokens(t.output || 0), fmtTokens(t.cacheRead || 0), fmtTokens(t.cacheWrite || 0), fmtTokens(valueOf(r, 'tokens')), fmtCost(r.cost), fmtInt(r.sessions)]
          .map((v) => h('td', { class: 'num', text: v })));
    }))));
  tables.append(h('h2', { text: 'Totals' }), totals,
    h('details', { class: 'detail' }, h('summary', { text: `Every period (${rows.length} rows)` }), detail));
}
