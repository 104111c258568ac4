// One EventSource for the whole page (`/api/events`), shared by the views.
// Views subscribe to `records` and `status`; the header shows whether the
// live connection is up.

const listeners = { records: new Set(), status: new Set(), hello: new Set() };
let source = null;

function indicator(state) {
  const el = document.getElementById('live');
  if (!el) return;
  el.textContent = state === 'open' ? 'live' : state === 'connecting' ? 'connecting…' : 'offline';
  el.dataset.state = state;
}

export function startLive() {
  if (source) return;
  indicator('connecting');
  source = new EventSource('/api/events');
  source.addEventListener('open', () => indicator('open'));
  source.addEventListener('error', () => indicator(source.readyState === EventSource.CLOSED ? 'offline' : 'connecting'));
  for (const type of Object.keys(listeners)) {
    source.addEventListener(type, (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      for (const fn of listeners[type]) fn(data);
    });
  }
}

/** Subscribe to `type`; returns the unsubscribe function. */
export function onLive(type, fn) {
  listeners[type].add(fn);
  return () => listeners[type].delete(fn);
}
