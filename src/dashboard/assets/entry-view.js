// One transcript entry as an element: role label, time, the text (long text
// and tool output folded), and a "Raw" button that opens the record's exact
// bytes. Text is set through text nodes only (see dom.js).

import { h, conversationHref, formatTime } from './dom.js';

const ROLE_LABEL = {
  user: 'User',
  assistant: 'Assistant',
  'tool-call': 'Tool call',
  'tool-result': 'Tool result',
  reasoning: 'Reasoning',
  system: 'System',
  meta: 'Record',
};

/** Characters shown before "Show all". */
const PREVIEW_CHARS = 1600;
const PREVIEW_LINES = 24;

function preview(text) {
  let cut = text.length > PREVIEW_CHARS ? PREVIEW_CHARS : text.length;
  let lines = 0;
  for (let i = 0; i < cut; i++) {
    if (text.charCodeAt(i) === 10 && ++lines >= PREVIEW_LINES) {
      cut = i;
      break;
    }
  }
  return cut < text.length ? text.slice(0, cut) : null;
}

function body(entry) {
  const mono = entry.role === 'tool-call' || entry.role === 'tool-result' || entry.role === 'meta';
  const pre = h('div', { class: mono ? 'text mono' : 'text' });
  const short = preview(entry.text);
  if (short === null) {
    pre.textContent = entry.text;
    return pre;
  }
  pre.textContent = short;
  const more = h('button', { type: 'button', class: 'link more', 'aria-expanded': 'false' }, `Show all (${entry.text.length.toLocaleString()} characters)`);
  more.addEventListener('click', () => {
    const open = more.getAttribute('aria-expanded') === 'true';
    pre.textContent = open ? short : entry.text;
    more.setAttribute('aria-expanded', String(!open));
    more.textContent = open ? `Show all (${entry.text.length.toLocaleString()} characters)` : 'Show less';
  });
  return h('div', {}, pre, more);
}

/** Folded by default: tool output, reasoning and bookkeeping records. */
function folded(entry) {
  return entry.role === 'tool-result' || entry.role === 'reasoning' || (entry.role === 'meta' && entry.title !== 'Text');
}

export function entryElement(entry, options) {
  const label = ROLE_LABEL[entry.role] ?? 'Record';
  const title = entry.title && entry.title !== label ? entry.title : '';
  const raw = h('button', { type: 'button', class: 'link raw-button', 'aria-label': `Raw bytes of record ${entry.record}` }, 'Raw');
  raw.addEventListener('click', (event) => {
    // Inside a folded entry's summary: open the raw view, do not toggle the fold.
    event.preventDefault();
    event.stopPropagation();
    options.onRaw(entry);
  });
  const head = h(
    'header',
    { class: 'entry-head' },
    h('span', { class: 'role' }, label),
    title ? h('span', { class: 'entry-title' }, title) : null,
    entry.sidechain ? h('span', { class: 'badge' }, 'sidechain') : null,
    entry.child ? h('a', { href: conversationHref(entry.child), 'data-nav': '', class: 'child-link' }, 'Open subagent →') : null,
    h('time', { datetime: new Date(entry.at).toISOString() }, formatTime(entry.at)),
    raw,
  );
  const article = h('article', {
    class: `entry role-${entry.role}${entry.quiet ? ' quiet' : ''}${entry.bookkeeping ? ' bookkeeping' : ''}`,
    'data-item': '',
    'data-record': entry.record,
    'data-line': entry.line,
    tabindex: '-1',
    'aria-label': `${label}${title ? `: ${title}` : ''}, ${formatTime(entry.at)}`,
  });
  if (entry.quiet || (entry.text === '' && entry.role === 'meta')) {
    article.append(head);
    return article;
  }
  if (folded(entry)) {
    const lines = entry.text.split('\n').length;
    const size = entry.text.length > 0 ? ` · ${lines} line${lines === 1 ? '' : 's'}` : '';
    const details = h('details', {}, h('summary', {}, head, h('span', { class: 'fold-hint' }, firstLine(entry.text) + size)));
    details.addEventListener('toggle', () => {
      if (details.open && details.childElementCount === 1) details.append(body(entry));
    });
    article.append(details);
    return article;
  }
  article.append(head, body(entry));
  return article;
}

function firstLine(text) {
  const trimmed = text.trimStart();
  // JSON: a one-line digest of its start; other text: its first non-empty line.
  const line = trimmed.startsWith('{') || trimmed.startsWith('[') ? trimmed.slice(0, 400).replace(/\s+/g, ' ') : (text.split('\n').find((l) => l.trim() !== '') ?? '');
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}
