// The dashboard's client: routes paths to views, keeps one live event
// stream, and the keyboard: `/` search, `j`/`k` next/previous item, `Enter`
// open, `Esc` back (or close the raw view).

import { h, clear } from './dom.js';
import { startLive } from './live.js';
import { closeRaw, rawDialogOpen } from './raw-view.js';
import { conversationView } from './view-conversation.js';
import { conversationsView } from './view-conversations.js';
import { searchView } from './view-search.js';
import { sourcesView } from './view-sources.js';
import { statusView } from './view-status.js';

const main = document.getElementById('main');
let cleanup = null;
let generation = 0;

function route(path) {
  if (path === '/' || path === '/search') return { view: searchView, title: 'Search', nav: '/search' };
  if (path === '/conversations') return { view: conversationsView, title: 'Conversations', nav: '/conversations' };
  if (path === '/sources') return { view: sourcesView, title: 'Sources', nav: '/sources' };
  if (path === '/status') return { view: statusView, title: 'Status', nav: '/status' };
  if (path.startsWith('/c/')) {
    try {
      return { view: conversationView, title: 'Conversation', nav: '/conversations', id: decodeURIComponent(path.slice(3)) };
    } catch {
      return null;
    }
  }
  return null;
}

async function show() {
  const mine = ++generation;
  if (typeof cleanup === 'function') cleanup();
  cleanup = null;
  clear(main);
  closeRaw();
  const r = route(location.pathname);
  for (const a of document.querySelectorAll('header.top nav a')) {
    if (r && a.getAttribute('href') === r.nav) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (r === null) {
    main.append(h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '/search', 'data-nav': '' }, 'Go to search')));
    return;
  }
  document.title = `${r.title} · agent-bridge history`;
  try {
    const result = await r.view(main, { id: r.id, query: new URLSearchParams(location.search) }, { navigate });
    if (mine === generation) cleanup = result ?? null;
    else if (typeof result === 'function') result();
  } catch (error) {
    if (mine !== generation) return;
    main.append(h('p', { class: 'error', role: 'alert' }, error.message ?? String(error)));
  }
}

export function navigate(href) {
  history.pushState(null, '', href);
  window.scrollTo(0, 0);
  void show();
}

document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const a = event.target instanceof Element ? event.target.closest('a[data-nav]') : null;
  if (!a || a.origin !== location.origin) return;
  event.preventDefault();
  navigate(a.pathname + a.search);
});
window.addEventListener('popstate', () => void show());

function items() {
  return [...main.querySelectorAll('[data-item]')].filter((el) => el.offsetParent !== null);
}

function move(step) {
  const list = items();
  if (list.length === 0) return;
  const current = list.findIndex((el) => el.classList.contains('selected'));
  const nextIndex = current < 0 ? (step > 0 ? 0 : list.length - 1) : Math.max(0, Math.min(list.length - 1, current + step));
  list[current]?.classList.remove('selected');
  const el = list[nextIndex];
  el.classList.add('selected');
  if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
  el.focus({ preventScroll: true });
  el.scrollIntoView({ block: 'nearest' });
}

document.addEventListener('keydown', (event) => {
  const target = event.target;
  const typing =
    target instanceof HTMLElement &&
    (target.isContentEditable || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA' || (target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit'].includes(target.type)));
  if (event.key === 'Escape') {
    if (rawDialogOpen()) return; // the dialog closes itself
    if (typing) {
      target.blur();
      return;
    }
    if (history.length > 1) history.back();
    return;
  }
  if (typing || event.metaKey || event.ctrlKey || event.altKey) return;
  if (event.key === '/') {
    event.preventDefault();
    const box = document.getElementById('q');
    if (box) box.focus();
    else navigate('/search');
  } else if (event.key === 'j') {
    move(1);
  } else if (event.key === 'k') {
    move(-1);
  } else if (event.key === 'Enter') {
    const selected = main.querySelector('[data-item].selected');
    const link = selected?.querySelector('a[href]');
    if (selected && link && document.activeElement === selected) {
      event.preventDefault();
      link.click();
    }
  }
});

startLive();
void show();
