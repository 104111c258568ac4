// Status: capture and migration progress (bars with percentage and time
// left), backlog, batch latency, mirrors, errors, what the store holds, and
// the activity chart. Updated live from the event stream.

import { getJson } from './api.js';
import { h, clear, formatBytes, formatDuration, formatTime } from './dom.js';
import { activityChart } from './chart.js';
import { onLive } from './live.js';

function progress(label, percent, detail) {
  const value = percent === null || percent === undefined ? null : Math.max(0, Math.min(100, percent));
  return h(
    'div',
    { class: 'progress-block' },
    h('div', { class: 'progress-label' }, h('span', {}, label), h('strong', {}, value === null ? '—' : `${value.toFixed(1)} %`)),
    h('progress', { max: '100', value: value === null ? undefined : String(value), 'aria-label': `${label}: ${value === null ? 'no backlog' : `${value.toFixed(1)} percent`}` }),
    h('p', { class: 'muted' }, detail),
  );
}

function card(title, ...children) {
  return h('section', { class: 'card', 'aria-labelledby': `card-${title.toLowerCase().replace(/\W+/g, '-')}` }, h('h2', { id: `card-${title.toLowerCase().replace(/\W+/g, '-')}` }, title), ...children);
}

function serviceLine(s) {
  const v = s.service;
  const who = v.pid ? ` · writer pid ${v.pid}` : '';
  const mode = v.mode ? ` · ${v.mode}${v.pace ? `, pace ${v.pace}` : ''}` : '';
  const stale = v.state === 'stale' ? ` · last status ${formatDuration(Math.round((v.ageMs || 0) / 1000))} ago` : '';
  return h('p', { class: 'phase' }, h('span', { class: `dot phase-${s.capture.phase}` }), `${s.capture.phase} (${v.state})`, who, mode, stale);
}

function captureCard(s) {
  const c = s.capture;
  const parts = [`${c.backlog.sources} sources, ${formatBytes(c.backlog.bytes)} waiting`];
  if (c.bytesPerSecond) parts.push(`${formatBytes(Math.round(c.bytesPerSecond))}/s`);
  if (c.etaSeconds !== null) parts.push(`about ${formatDuration(c.etaSeconds)} left`);
  if (c.pausedBy.length > 0) parts.push(`paused by ${c.pausedBy.join(', ')}`);
  const b = s.batches;
  return card(
    'Capture',
    serviceLine(s),
    progress('Backlog captured', c.backlog.bytes > 0 ? c.percent : null, c.backlog.bytes > 0 ? parts.join(' · ') : 'Nothing waiting: every source found is captured.'),
    b.committed > 0 ? h('p', {}, `Batches: ${b.committed.toLocaleString()} · p50 ${b.p50Ms.toFixed(1)} ms · p99 ${b.p99Ms.toFixed(1)} ms`) : null,
  );
}

function migrationCard(m) {
  if (m.phase === 'none') return card('Migration', h('p', { class: 'muted' }, 'Nothing to migrate: this home has no 0.29.x history in bridge.db.'));
  const detail = [`${m.rowsDone.toLocaleString()} / ${m.rowsTotal.toLocaleString()} rows`];
  if (m.ioBytesPerSecond > 0) detail.push(`${formatBytes(m.ioBytesPerSecond)}/s`);
  if (m.etaSeconds !== null) detail.push(`about ${formatDuration(m.etaSeconds)} left`);
  return card(
    'Migration',
    h('p', { class: 'phase' }, h('span', { class: `dot phase-${m.phase}` }), m.phase, m.pass && m.pass !== m.phase ? ` · ${m.pass}` : ''),
    progress('Legacy history copied and verified', m.phase === 'verified' ? 100 : m.percent, m.phase === 'verified' ? 'Verified: readers use history.db.' : detail.join(' · ')),
    m.failure ? h('p', { class: 'error', role: 'alert' }, `${m.failure.code}: ${m.failure.message}`, m.retry ? ` — resolve the cause, then run ${m.retry}` : '') : null,
  );
}

function storeCard(s) {
  const c = s.counts;
  return card(
    'Store',
    c === null
      ? h('p', { class: 'muted' }, 'Nothing captured yet.')
      : h('dl', { class: 'facts' }, h('dt', {}, 'Sources'), h('dd', {}, c.sources.toLocaleString()), h('dt', {}, 'Conversations'), h('dd', {}, c.conversations.toLocaleString()), h('dt', {}, 'Records'), h('dd', {}, `${c.records.toLocaleString()} (${formatBytes(c.rawBytes)})`), h('dt', {}, 'Search documents'), h('dd', {}, c.documents.toLocaleString())),
    h('p', { class: 'muted' }, 'Home: ', h('code', {}, s.home)),
  );
}

function mirrorsLine(m) {
  const parts = [`Mirrors: ${m.phase}${m.detail ? ` (${m.detail})` : ''}`];
  if (m.projects > 0) parts.push(`${m.synced} of ${m.projects} projects synced`);
  if (m.held > 0) parts.push(`${m.held} held back (agent-bridge mirrors says why)`);
  if (m.recordsBehind > 0) parts.push(`${m.recordsBehind.toLocaleString()} records to copy`);
  return h('p', {}, parts.join(' · '));
}

function problemsCard(s) {
  const more = s.errorCount > s.errors.length ? h('p', { class: 'muted' }, `… and ${s.errorCount - s.errors.length} more (agent-bridge health --json lists them)`) : null;
  return card(
    'Mirrors and errors',
    mirrorsLine(s.mirrors),
    s.errors.length === 0 ? h('p', { class: 'muted' }, 'No errors reported.') : h('ul', { class: 'errors' }, s.errors.map((e) => h('li', {}, h('code', {}, e.code), ' ', e.path ? h('code', {}, e.path) : null, ' ', e.message))),
    more,
  );
}

export async function statusView(main) {
  const grid = h('div', { class: 'cards' });
  const updated = h('p', { class: 'muted', role: 'status', 'aria-live': 'polite' });
  const activity = h('section', { class: 'card wide', 'aria-labelledby': 'card-activity' }, h('h2', { id: 'card-activity' }, 'Activity · last 90 days'));
  main.append(h('h1', {}, 'Status'), updated, grid, activity);
  function show(s) {
    clear(grid).append(captureCard(s), migrationCard(s.migration), storeCard(s), problemsCard(s));
    updated.textContent = `Updated ${formatTime(s.generatedAt)}`;
  }
  const [status, chart] = await Promise.all([getJson('/api/status'), getJson('/api/activity')]);
  show(status);
  activity.append(activityChart(chart));
  return onLive('status', show);
}
