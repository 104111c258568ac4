// Search: a query box (`/` focuses it), filters for agent, kind, project and
// time, hits with highlighted snippets, a notice when the search was
// bounded. Each hit opens its conversation at the record it came from.

import { getJson } from './api.js';
import { h, agentBadge, conversationHref, formatTime, highlighted, relativeTime } from './dom.js';

const AGENTS = ['claude', 'codex', 'opencode', 'other'];
const KINDS = ['transcript', 'message', 'run', 'decision', 'approval', 'progress', 'report'];
const SINCE = [
  ['', 'any time'],
  ['1d', 'last 24 hours'],
  ['7d', 'last 7 days'],
  ['30d', 'last 30 days'],
  ['90d', 'last 90 days'],
];

function select(name, label, options, value) {
  const el = h('select', { name, id: `f-${name}` }, ...options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
  return h('label', { for: `f-${name}` }, h('span', {}, label), el);
}

/** Words of a query to highlight (quotes and operators dropped). */
export function queryWords(query) {
  return query.replace(/["()*]/g, ' ').split(/\s+/).filter((w) => w.length > 1 && !['AND', 'OR', 'NOT'].includes(w));
}

function sinceMs(spec) {
  const m = /^(\d+)d$/.exec(spec);
  return m ? Date.now() - Number(m[1]) * 86_400_000 : undefined;
}

/** The record a hit came from: in its id (`durable:<record>:<line>`), else asked of /api/history. */
async function hitTarget(hit) {
  const m = /^durable:(\d+)(?::(\d+))?$/.exec(hit.id);
  if (m) return { at: m[1], line: m[2] ?? hit.cursor };
  try {
    const doc = await getJson(`/api/history/${encodeURIComponent(hit.id)}`);
    return doc.record ? { at: doc.record.id, line: doc.line } : {};
  } catch {
    return {};
  }
}

function hitElement(hit, words, navigate) {
  const href = hit.conversation ? conversationHref(hit.conversation, /^durable:(\d+)/.exec(hit.id)?.[1], /^durable:\d+:(\d+)$/.exec(hit.id)?.[1] ?? hit.cursor) : null;
  const title = h('a', { href: href ?? '#', 'data-nav': '', class: 'hit-link' }, hit.conversation ?? hit.id);
  title.addEventListener('click', async (event) => {
    if (href !== null && /^durable:\d+/.test(hit.id)) return;
    event.preventDefault();
    event.stopPropagation();
    if (!hit.conversation) return;
    const target = await hitTarget(hit);
    navigate(conversationHref(hit.conversation, target.at, target.line));
  });
  return h(
    'li',
    { class: 'hit', 'data-item': '' },
    h('div', { class: 'hit-meta' }, agentBadge(hit.agent), h('span', { class: 'badge kind' }, hit.kind), h('time', { datetime: new Date(hit.at).toISOString(), title: formatTime(hit.at) }, relativeTime(hit.at)), hit.project ? h('code', { class: 'project' }, hit.project) : null),
    h('p', { class: 'snippet' }, highlighted(hit.snippet, words)),
    h('div', { class: 'hit-foot' }, title),
  );
}

export async function searchView(main, params, { navigate }) {
  const q = params.query.get('q') ?? '';
  const form = h(
    'form',
    { class: 'search', role: 'search', 'aria-label': 'Search history' },
    h('label', { for: 'q', class: 'sr-only' }, 'Search words'),
    h('input', { id: 'q', name: 'q', type: 'search', value: q, placeholder: 'Search every transcript…  (press / to focus)', autocomplete: 'off', autofocus: true, required: true }),
    h('button', { type: 'submit' }, 'Search'),
    h(
      'div',
      { class: 'filters' },
      select('agent', 'Agent', [['', 'all agents'], ...AGENTS.map((a) => [a, a])], params.query.get('agent') ?? ''),
      select('kind', 'Kind', [['', 'all kinds'], ...KINDS.map((k) => [k, k])], params.query.get('kind') ?? ''),
      select('since', 'Time', SINCE, params.query.get('since') ?? ''),
      h('label', { for: 'f-project' }, h('span', {}, 'Project'), h('input', { id: 'f-project', name: 'project', type: 'text', value: params.query.get('project') ?? '', placeholder: '/path/to/project' })),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const query = new URLSearchParams();
    for (const [k, v] of data) if (String(v).trim() !== '') query.set(k, String(v).trim());
    navigate(`/search?${query}`);
  });
  for (const el of form.querySelectorAll('select')) el.addEventListener('change', () => form.requestSubmit());
  const results = h('section', { class: 'results', 'aria-label': 'Results', 'aria-live': 'polite' });
  main.append(h('h1', { class: 'sr-only' }, 'Search'), form, results);
  if (q.trim() === '') {
    results.append(h('p', { class: 'muted' }, 'Every word must match; "double quotes" find a phrase. Matching ignores case and accents.'));
    return;
  }
  const started = performance.now();
  let out;
  try {
    out = await getJson('/api/search', {
      q,
      agent: params.query.get('agent'),
      kind: params.query.get('kind'),
      project: params.query.get('project'),
      since: sinceMs(params.query.get('since') ?? ''),
      limit: 50,
    });
  } catch (error) {
    results.append(h('p', { class: 'error', role: 'alert' }, error.message));
    return;
  }
  const ms = performance.now() - started;
  const words = queryWords(q);
  results.append(h('p', { class: 'muted summary' }, `${out.hits.length} hit${out.hits.length === 1 ? '' : 's'} · ${ms.toFixed(0)} ms · ${out.engine === 'fts5' ? 'full-text index' : 'literal search'}${out.store === 'legacy' ? ' · legacy store (migration running)' : ''}`));
  if (out.truncated) results.append(h('p', { class: 'notice', role: 'note' }, out.notice ?? 'Very many records matched: these are the best of the newest. Add words or filters to narrow it.'));
  if (out.hits.length === 0) {
    results.append(h('p', {}, 'Nothing matched.'));
    return;
  }
  results.append(h('ol', { class: 'hits' }, out.hits.map((hit) => hitElement(hit, words, navigate))));
}
