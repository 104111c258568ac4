// Conversations, newest activity first, filtered by agent and project,
// paged by the list's keyset cursor; new activity moves rows to the top live.

import { getJson } from './api.js';
import { h, agentBadge, clear, conversationHref, formatBytes, formatTime, relativeTime, shortId } from './dom.js';
import { onLive } from './live.js';

function row(c) {
  return h(
    'li',
    { class: 'conv', 'data-item': '', 'data-id': c.id },
    h('div', { class: 'conv-main' }, agentBadge(c.agent), h('a', { href: conversationHref(c.id), 'data-nav': '', class: 'conv-link' }, shortId(c.id)), c.parent ? h('span', { class: 'badge' }, 'child') : null, c.job ? h('span', { class: 'badge job' }, `job ${c.job}`) : null),
    h(
      'div',
      { class: 'conv-meta' },
      c.project ? h('code', { class: 'project' }, c.project) : h('span', { class: 'muted' }, 'no project'),
      h('span', {}, `${c.records.toLocaleString()} records · ${formatBytes(c.bytes)}`),
      c.children > 0 ? h('span', {}, `${c.children} native ${c.children === 1 ? 'child' : 'children'}`) : null,
      h('time', { datetime: new Date(c.lastAt).toISOString(), title: formatTime(c.lastAt) }, relativeTime(c.lastAt)),
    ),
  );
}

export async function conversationsView(main, params, { navigate }) {
  const agent = params.query.get('agent') ?? '';
  const project = params.query.get('project') ?? '';
  const form = h(
    'form',
    { class: 'filters inline', 'aria-label': 'Filter conversations' },
    h('label', { for: 'c-agent' }, h('span', {}, 'Agent'), h('select', { id: 'c-agent', name: 'agent' }, ...[['', 'all agents'], ['claude', 'claude'], ['codex', 'codex'], ['opencode', 'opencode'], ['other', 'other']].map(([v, t]) => h('option', { value: v, selected: v === agent }, t)))),
    h('label', { for: 'c-project' }, h('span', {}, 'Project'), h('input', { id: 'c-project', name: 'project', value: project, placeholder: '/path/to/project' })),
    h('button', { type: 'submit' }, 'Filter'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (String(v).trim() !== '') query.set(k, String(v).trim());
    navigate(`/conversations${query.size ? `?${query}` : ''}`);
  });
  form.querySelector('select').addEventListener('change', () => form.requestSubmit());
  const list = h('ol', { class: 'convs', 'aria-label': 'Conversations' });
  const more = h('button', { type: 'button', class: 'link load' }, 'Load older conversations');
  const note = h('p', { class: 'muted', role: 'status', 'aria-live': 'polite' });
  main.append(h('h1', {}, 'Conversations'), form, note, list, more);
  let next = null;
  const filters = { agent, project };
  async function load(after) {
    const page = await getJson('/api/conversations', { ...filters, after, limit: 50 });
    for (const c of page.conversations) list.append(row(c));
    next = page.next;
    more.hidden = next === null;
    if (list.childElementCount === 0) note.textContent = 'No conversations captured yet.';
  }
  more.addEventListener('click', () => void load(next));
  await load(undefined);
  const stop = onLive('records', async () => {
    const page = await getJson('/api/conversations', { ...filters, limit: 20 });
    for (const c of [...page.conversations].reverse()) {
      const existing = list.querySelector(`[data-id="${CSS.escape(c.id)}"]`);
      const fresh = row(c);
      fresh.classList.add('fresh');
      existing?.remove();
      list.prepend(fresh);
    }
    note.textContent = `Updated ${formatTime(Date.now())}`;
  });
  return () => {
    stop();
    clear(list);
  };
}
