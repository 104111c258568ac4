// Sources: every captured file with its cursor and each retained generation
// (records, bytes, times), with a download of that generation's exact bytes.

import { getJson, rawSourcePath } from './api.js';
import { h, conversationHref, formatBytes, formatTime, shortId } from './dom.js';

function sourceRow(s) {
  return h(
    'li',
    { class: 'source', 'data-item': '' },
    h('div', { class: 'source-path' }, h('span', { class: 'badge kind' }, s.format), h('code', {}, s.path)),
    h('div', { class: 'conv-meta' }, h('a', { href: conversationHref(s.conversation), 'data-nav': '' }, shortId(s.conversation)), h('span', {}, `cursor: generation ${s.generation}, ${formatBytes(s.offset)}`)),
    h(
      'div',
      { class: 'table-scroll' },
      h(
      'table',
      { class: 'generations' },
      h('caption', { class: 'sr-only' }, `Generations of ${s.path}`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Generation'), h('th', { scope: 'col' }, 'Records'), h('th', { scope: 'col' }, 'Bytes'), h('th', { scope: 'col' }, 'Record times'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Download')))),
      h(
        'tbody',
        {},
        s.generations.map((g) =>
          h(
            'tr',
            {},
            h('td', {}, String(g.generation)),
            h('td', {}, g.records.toLocaleString()),
            h('td', {}, formatBytes(g.bytes)),
            h('td', {}, `${formatTime(g.firstAt)} → ${formatTime(g.lastAt)}`),
            h('td', {}, h('a', { href: rawSourcePath(s.id, g.generation), download: '', class: 'button small', 'aria-label': `Download generation ${g.generation} of ${s.path}` }, 'Download')),
          ),
        ),
      ),
    ),
    ),
  );
}

export async function sourcesView(main) {
  const list = h('ol', { class: 'sources', 'aria-label': 'Sources' });
  const more = h('button', { type: 'button', class: 'link load' }, 'Load more sources');
  main.append(h('h1', {}, 'Sources'), h('p', { class: 'muted' }, 'Files as captured: a truncated or replaced file starts a new generation, and every earlier one stays, byte for byte.'), list, more);
  let next = null;
  async function load(after) {
    const page = await getJson('/api/sources', { after, limit: 100 });
    for (const s of page.sources) list.append(sourceRow(s));
    next = page.next;
    more.hidden = next === null;
  }
  more.addEventListener('click', () => void load(next));
  await load(undefined);
}
