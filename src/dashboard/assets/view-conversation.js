// A conversation: header (agent, project, session, job, counts), its native
// family as a tree (parent link up, children down, grandchildren on demand),
// and its records rendered by role, a page at a time. Pages load as the
// reader scrolls (both ways when opened at a record); at most MAX_PAGES stay
// in the document, so a conversation of any length stays light. New records
// arrive live while the end is loaded.

import { getJson, conversationPath } from './api.js';
import { h, clear, agentBadge, conversationHref, formatBytes, formatTime, relativeTime, shortId } from './dom.js';
import { entryElement } from './entry-view.js';
import { onLive } from './live.js';
import { openRaw } from './raw-view.js';
import { TranscriptReader } from './transcript.js';

const PAGE = 50;
const MAX_PAGES = 8;

function childList(children) {
  const ul = h('ul', { class: 'tree' });
  for (const child of children) {
    const li = h('li', {});
    const link = h('a', { href: conversationHref(child.id), 'data-nav': '' }, shortId(child.id));
    li.append(link, ' ', h('span', { class: 'muted' }, `${child.records} records · ${relativeTime(child.lastAt)}`));
    if (child.children > 0) {
      const more = h('details', {}, h('summary', {}, `${child.children} native ${child.children === 1 ? 'child' : 'children'}`));
      more.addEventListener('toggle', async () => {
        if (!more.open || more.dataset.loaded) return;
        more.dataset.loaded = '1';
        const family = await getJson(`${conversationPath(child.id)}/family`);
        more.append(childList(family.children));
      });
      li.append(more);
    }
    ul.append(li);
  }
  return ul;
}

function headerOf(id, page, family) {
  const info = page.conversation;
  const summary = family.summary;
  const facts = h('dl', { class: 'facts' });
  const fact = (k, v) => v !== null && v !== undefined && v !== '' && facts.append(h('dt', {}, k), h('dd', {}, v));
  fact('Agent', info ? agentBadge(info.agent) : null);
  fact('Project', info?.project ? h('code', {}, info.project) : null);
  fact('Session', info?.session ? h('code', {}, info.session) : null);
  fact('Job', info?.job ? h('code', {}, info.job) : null);
  if (summary) {
    fact('Records', `${summary.records.toLocaleString()} (${formatBytes(summary.bytes)})`);
    fact('Time', `${formatTime(summary.firstAt)} → ${formatTime(summary.lastAt)}`);
  }
  const tree = h('nav', { class: 'family', 'aria-label': 'Native family' });
  if (family.parent) tree.append(h('p', {}, 'Parent: ', h('a', { href: conversationHref(family.parent.id), 'data-nav': '', rel: 'up' }, shortId(family.parent.id))));
  if (family.children.length > 0) tree.append(h('h2', { class: 'small' }, `Native children (${summary?.children ?? family.children.length})`), childList(family.children));
  return h('header', { class: 'page-head' }, h('h1', { class: 'conv-title' }, shortId(id)), facts, tree.childElementCount > 0 ? tree : null);
}

export async function conversationView(main, params) {
  const id = params.id;
  const at = params.query.get('at');
  const line = params.query.get('line');
  const [family, first] = await Promise.all([
    getJson(`${conversationPath(id)}/family`),
    at ? getJson(conversationPath(id), { before: Number(at), limit: 10 }) : getJson(conversationPath(id), { limit: PAGE }),
  ]);
  if (first.conversation === null && first.records.length === 0) {
    main.append(h('h1', {}, 'Conversation not found'), h('p', {}, h('code', {}, id), ' has no retained records.'));
    return () => undefined;
  }
  const reader = new TranscriptReader(first.conversation?.agent ?? 'other');
  const records = new Map();
  const list = h('div', { class: 'records', role: 'feed', 'aria-label': 'Records in capture order', 'aria-busy': 'false' });
  const topSentinel = h('div', { class: 'sentinel' });
  const earlier = h('button', { type: 'button', class: 'link load' }, 'Load earlier records');
  const bottom = h('div', { class: 'sentinel' });
  const later = h('button', { type: 'button', class: 'link load' }, 'Load more');
  const status = h('p', { class: 'muted', role: 'status', 'aria-live': 'polite' });
  const follow = h('label', { class: 'follow' }, h('input', { type: 'checkbox', checked: true }), ' Follow new records');
  // Bookkeeping records (snapshots, modes, queue operations, token counts) are hidden unless asked for; the choice is remembered.
  const showMeta = h('input', { type: 'checkbox', checked: localStorage.getItem('abh.showMeta') === '1' });
  const applyMeta = () => list.classList.toggle('hide-meta', !showMeta.checked);
  showMeta.addEventListener('change', () => {
    localStorage.setItem('abh.showMeta', showMeta.checked ? '1' : '0');
    applyMeta();
  });
  applyMeta();
  const options = h('div', { class: 'options' }, follow, h('label', { class: 'follow' }, showMeta, ' Show bookkeeping records'));
  main.append(headerOf(id, first, family), h('div', { class: 'toolbar' }, options, status), topSentinel, earlier, list, bottom, later);

  /** Loaded pages: { first, last, el, records: ids }. */
  const pages = [];
  let previous = null;
  let next = null;
  let loading = false;
  let atEnd = false;

  const onRaw = (entry) => {
    const record = records.get(entry.record);
    if (record) void openRaw(record, { line: entry.line, size: entry.size });
  };

  function render(page, where) {
    const el = h('section', { class: 'page', 'aria-label': `Records ${page.records[0]?.id ?? ''}–${page.records.at(-1)?.id ?? ''}` });
    // Entries are built in id order with a reader of their own when prepended, so the lines they complete stay within the page.
    const local = where === 'append' ? reader : new TranscriptReader(reader.agent);
    if (where !== 'append') local.state = reader.state;
    for (const record of page.records) {
      records.set(record.id, record);
      for (const entry of local.push(record)) el.append(entryElement(entry, { onRaw }));
    }
    if (where !== 'append') for (const entry of local.flushAll()) el.append(entryElement(entry, { onRaw }));
    const item = { first: page.records[0]?.id ?? 0, last: page.records.at(-1)?.id ?? 0, el, ids: page.records.map((r) => r.id) };
    if (where === 'append') {
      list.append(el);
      pages.push(item);
      if (pages.length > MAX_PAGES) drop('first');
    } else {
      const height = document.documentElement.scrollHeight;
      list.prepend(el);
      pages.unshift(item);
      window.scrollBy(0, document.documentElement.scrollHeight - height);
      if (pages.length > MAX_PAGES) drop('last');
    }
  }

  function drop(which) {
    const page = which === 'first' ? pages.shift() : pages.pop();
    if (!page) return;
    for (const rid of page.ids) records.delete(rid);
    if (which === 'first') {
      const height = document.documentElement.scrollHeight;
      page.el.remove();
      window.scrollBy(0, document.documentElement.scrollHeight - height);
      previous = pages[0]?.first ?? page.last + 1;
    } else {
      page.el.remove();
      next = pages.at(-1)?.last ?? page.first - 1;
      atEnd = false;
    }
    update();
  }

  function update() {
    earlier.hidden = previous === null;
    later.hidden = next === null;
    const total = family.summary?.records;
    const shown = pages.reduce((n, p) => n + p.ids.length, 0);
    status.textContent = total ? `${shown.toLocaleString()} of ${total.toLocaleString()} records in view` : '';
  }

  async function loadLater() {
    if (loading || next === null) return;
    loading = true;
    list.setAttribute('aria-busy', 'true');
    try {
      const page = await getJson(conversationPath(id), { after: next, limit: PAGE });
      if (page.records.length > 0) render(page, 'append');
      next = page.next;
      atEnd = page.next === null;
    } finally {
      loading = false;
      list.setAttribute('aria-busy', 'false');
      update();
    }
  }

  async function loadEarlier() {
    if (loading || previous === null) return;
    loading = true;
    try {
      const page = await getJson(conversationPath(id), { before: previous, limit: PAGE });
      if (page.records.length > 0) render(page, 'prepend');
      previous = page.previous;
    } finally {
      loading = false;
      update();
    }
  }

  if (at) {
    if (first.records.length > 0) render(first, 'append');
    previous = first.previous;
    const page = await getJson(conversationPath(id), { after: Number(at) - 1, limit: PAGE });
    if (page.records.length > 0) render(page, 'append');
    next = page.next;
    atEnd = page.next === null;
    const target =
      (line !== null && list.querySelector(`[data-record="${CSS.escape(at)}"][data-line="${CSS.escape(line)}"]`)) || list.querySelector(`[data-record="${CSS.escape(at)}"]`);
    if (target) {
      target.classList.add('target');
      target.scrollIntoView({ block: 'center' });
      target.focus({ preventScroll: true });
    }
  } else {
    render(first, 'append');
    next = first.next;
    atEnd = first.next === null;
  }
  update();
  earlier.addEventListener('click', () => void loadEarlier());
  later.addEventListener('click', () => void loadLater());

  // Load more while an end of what is loaded is within reach of the viewport (checked on scroll and after each load).
  const MARGIN = 800;
  let queued = false;
  function reach() {
    queued = false;
    if (loading) return;
    if (next !== null && bottom.getBoundingClientRect().top < window.innerHeight + MARGIN) void loadLater().then(schedule);
    else if (previous !== null && pages.length > 0 && topSentinel.getBoundingClientRect().bottom > -MARGIN) void loadEarlier().then(schedule);
  }
  function schedule() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(reach);
  }
  window.addEventListener('scroll', schedule, { passive: true });
  schedule();

  // Live: while the end is loaded, a change notice for this conversation fetches what came after the last record.
  const stopLive = onLive('records', async (changes) => {
    const mine = changes.more || changes.conversations.some((c) => c.id === id);
    if (!mine || !atEnd || loading) return;
    const last = pages.at(-1)?.last ?? 0;
    loading = true;
    try {
      const page = await getJson(conversationPath(id), { after: last, limit: PAGE });
      if (page.records.length === 0) return;
      const nearBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 200;
      const lastPage = pages.at(-1);
      if (lastPage && lastPage.ids.length + page.records.length <= PAGE) {
        for (const record of page.records) {
          records.set(record.id, record);
          lastPage.ids.push(record.id);
          for (const entry of reader.push(record)) {
            const el = entryElement(entry, { onRaw });
            el.classList.add('fresh');
            lastPage.el.append(el);
          }
        }
        lastPage.last = page.records.at(-1).id;
      } else {
        render(page, 'append');
      }
      next = page.next;
      atEnd = page.next === null;
      if (family.summary) family.summary.records += page.records.length;
      status.textContent = `${page.records.length} new record${page.records.length === 1 ? '' : 's'} · ${formatTime(Date.now())}`;
      if (follow.querySelector('input').checked && nearBottom) window.scrollTo({ top: document.documentElement.scrollHeight });
    } catch {
      // the next notice retries
    } finally {
      loading = false;
    }
  });

  return () => {
    window.removeEventListener('scroll', schedule);
    stopLive();
    clear(list);
  };
}
