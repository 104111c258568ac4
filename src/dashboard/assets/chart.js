// The activity chart: captured lines per day per agent over the last 90
// days, stacked bars drawn as SVG (no library), with a table of the same
// figures for screen readers.

import { h, svg } from './dom.js';

const AGENT_ORDER = ['claude', 'codex', 'opencode', 'other'];
const DAY = 86_400_000;

export function activityChart(data) {
  const agents = [...AGENT_ORDER.filter((a) => data.series[a]), ...Object.keys(data.series).filter((a) => !AGENT_ORDER.includes(a))];
  const totals = new Array(data.days).fill(0);
  for (const a of agents) data.series[a].forEach((n, i) => (totals[i] += n));
  const max = Math.max(1, ...totals);
  const width = 900;
  const height = 180;
  const pad = { left: 44, right: 8, top: 10, bottom: 24 };
  const bar = (width - pad.left - pad.right) / data.days;
  const y = (n) => pad.top + (height - pad.top - pad.bottom) * (1 - n / max);
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': `Captured lines per day over the last ${data.days} days, by agent; busiest day ${max.toLocaleString()}` });
  for (const frac of [0, 0.5, 1]) {
    const v = Math.round(max * frac);
    chart.append(svg('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: 'grid' }), svg('text', { x: pad.left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, v.toLocaleString()));
  }
  for (let i = 0; i < data.days; i++) {
    let base = 0;
    for (const a of agents) {
      const n = data.series[a][i] ?? 0;
      if (n === 0) continue;
      const rect = svg('rect', { x: pad.left + i * bar + 0.5, width: Math.max(1, bar - 1), y: y(base + n), height: y(base) - y(base + n), class: `bar agent-${AGENT_ORDER.includes(a) ? a : 'other'}` });
      rect.append(svg('title', {}, `${new Date(data.from + i * DAY).toISOString().slice(0, 10)} · ${a}: ${n.toLocaleString()}`));
      chart.append(rect);
      base += n;
    }
  }
  for (const i of [0, Math.floor(data.days / 2), data.days - 1]) {
    chart.append(svg('text', { x: pad.left + i * bar + bar / 2, y: height - 6, 'text-anchor': i === 0 ? 'start' : i === data.days - 1 ? 'end' : 'middle', class: 'axis' }, new Date(data.from + i * DAY).toISOString().slice(5, 10)));
  }
  const legend = h('ul', { class: 'legend' }, agents.map((a) => h('li', {}, h('span', { class: `swatch agent-${AGENT_ORDER.includes(a) ? a : 'other'}`, 'aria-hidden': 'true' }), `${a} (${data.series[a].reduce((x, y2) => x + y2, 0).toLocaleString()})`)));
  const busy = totals.map((n, i) => [i, n]).filter(([, n]) => n > 0);
  const table = h(
    'table',
    { class: 'sr-only' },
    h('caption', {}, 'Captured lines per day and agent'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Day'), agents.map((a) => h('th', { scope: 'col' }, a)))),
    h('tbody', {}, busy.map(([i]) => h('tr', {}, h('th', { scope: 'row' }, new Date(data.from + i * DAY).toISOString().slice(0, 10)), agents.map((a) => h('td', {}, String(data.series[a][i] ?? 0)))))),
  );
  return h('figure', { class: 'activity' }, chart, h('figcaption', {}, legend), table);
}
