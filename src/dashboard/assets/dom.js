// DOM helpers. Every piece of text reaches the page through text nodes or
// attribute values set with setAttribute: there is no innerHTML anywhere in
// the client, so transcript bytes always render as text.

/**
 * h('a', { href: '/x', class: 'y' }, 'text', child) → an element.
 * Attributes: `class`, `text`, `on<Event>` (a listener), booleans, strings.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === 'text') el.textContent = String(value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** SVG element (namespaced). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== undefined && value !== null) el.setAttribute(key, String(value));
  for (const child of children.flat(Infinity)) if (child) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

/** `text` with every case-insensitive occurrence of `words` wrapped in <mark> (text nodes only). */
export function highlighted(text, words) {
  const terms = words.filter((w) => w.length > 0).map((w) => w.toLowerCase());
  if (terms.length === 0) return [document.createTextNode(text)];
  const lower = text.toLowerCase();
  const out = [];
  let i = 0;
  while (i < text.length) {
    let best = -1;
    let len = 0;
    for (const t of terms) {
      const at = lower.indexOf(t, i);
      if (at >= 0 && (best < 0 || at < best || (at === best && t.length > len))) {
        best = at;
        len = t.length;
      }
    }
    if (best < 0) break;
    if (best > i) out.push(document.createTextNode(text.slice(i, best)));
    out.push(h('mark', {}, text.slice(best, best + len)));
    i = best + len;
  }
  if (i < text.length) out.push(document.createTextNode(text.slice(i)));
  return out;
}

export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

export function formatTime(ms) {
  if (!Number.isFinite(ms) || ms <= 0) return '—';
  const d = new Date(ms);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function relativeTime(ms, now = Date.now()) {
  if (!Number.isFinite(ms) || ms <= 0) return '—';
  const s = Math.round((now - ms) / 1000);
  if (s < 0) return formatTime(ms);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 86400 * 30) return `${Math.floor(s / 86400)} d ago`;
  return formatTime(ms).slice(0, 10);
}

export function formatDuration(seconds) {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  if (seconds < 60) return `${Math.max(0, Math.round(seconds))} s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m} min ${String(Math.round(seconds % 60)).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** Path of a page for a conversation (opened at a record, and a line within it, when given). */
export function conversationHref(id, at, line) {
  const params = new URLSearchParams();
  if (at !== undefined && at !== null) params.set('at', String(at));
  if (line !== undefined && line !== null) params.set('line', String(line));
  const q = params.toString();
  return `/c/${encodeURIComponent(id)}${q ? `?${q}` : ''}`;
}

export function agentBadge(agent) {
  return h('span', { class: `badge agent-${['claude', 'codex', 'opencode'].includes(agent) ? agent : 'other'}` }, agent);
}

export function shortId(id) {
  return id.length > 48 ? `${id.slice(0, 30)}…${id.slice(-12)}` : id;
}
