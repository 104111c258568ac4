// The raw view of one record: the exact captured bytes (as UTF-8 text, with
// the entry's line marked), where they come from (source, generation, byte
// range, sha256), a copy button and a download of the bytes themselves.

import { h, clear, formatBytes } from './dom.js';
import { base64Bytes } from './transcript.js';

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

async function sha256(bytes) {
  if (!globalThis.crypto?.subtle) return 'unavailable';
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

let dialog = null;

function ensureDialog() {
  if (dialog) return dialog;
  dialog = h('dialog', { class: 'raw', 'aria-labelledby': 'raw-title' });
  document.body.append(dialog);
  return dialog;
}

export function rawDialogOpen() {
  return dialog?.open === true;
}

export function closeRaw() {
  if (dialog?.open) dialog.close();
}

/** Open the raw view of `record` (a get_conversation record), marking bytes [lineStart, lineStart + size) of its source. */
export async function openRaw(record, mark) {
  const d = ensureDialog();
  clear(d);
  const bytes = base64Bytes(record.raw);
  const text = decoder.decode(bytes);
  const pre = h('pre', { class: 'raw-bytes', tabindex: '0', 'aria-label': 'Exact captured bytes' });
  const from = mark ? Math.max(0, mark.line - record.offset) : -1;
  if (from >= 0 && from < bytes.length) {
    const to = Math.min(bytes.length, from + mark.size);
    pre.append(decoder.decode(bytes.subarray(0, from)), h('mark', {}, decoder.decode(bytes.subarray(from, to))), decoder.decode(bytes.subarray(to)));
  } else {
    pre.textContent = text;
  }
  const digest = h('code', { class: 'sha' }, '…');
  const copy = h('button', { type: 'button' }, 'Copy');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      copy.textContent = 'Copied';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(pre);
      const selection = getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      copy.textContent = 'Selected: press Ctrl+C';
    }
  });
  const download = h('a', { class: 'button', download: `record-${record.id}.bin`, href: URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' })) }, 'Download bytes');
  const close = h('button', { type: 'button', class: 'close', 'aria-label': 'Close raw view' }, '×');
  close.addEventListener('click', () => d.close());
  d.append(
    h('header', { class: 'raw-head' }, h('h2', { id: 'raw-title' }, `Record ${record.id} · exact bytes`), close),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Source'), h('dd', {}, h('code', {}, record.source)),
      h('dt', {}, 'Generation'), h('dd', {}, String(record.generation)),
      h('dt', {}, 'Bytes'), h('dd', { 'data-range': `${record.offset}-${record.offset + bytes.length}` }, `${record.offset.toLocaleString()} – ${(record.offset + bytes.length).toLocaleString()} (${formatBytes(bytes.length)})`),
      h('dt', {}, 'SHA-256'), h('dd', {}, digest),
    ),
    h('div', { class: 'actions' }, copy, download),
    pre,
  );
  d.showModal();
  pre.querySelector('mark')?.scrollIntoView({ block: 'center' });
  digest.textContent = await sha256(bytes);
}
