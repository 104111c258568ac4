// Talking to the dashboard's API: same-origin fetches (the session cookie
// goes along by itself), JSON errors shown as messages.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function getJson(path, params = {}) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') query.set(k, String(v));
  const q = query.toString();
  const response = await fetch(q ? `${path}?${q}` : path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    if (response.status === 401) throw new ApiError(401, 'UNAUTHORIZED', 'Your session has ended: open the address the dashboard printed when it started.');
    const error = body && body.error ? body.error : { code: 'HTTP', message: `${response.status} ${response.statusText}` };
    throw new ApiError(response.status, error.code, error.message);
  }
  return body;
}

export function conversationPath(id) {
  return `/api/conversations/${encodeURIComponent(id)}`;
}

export function rawSourcePath(source, generation) {
  return `/api/sources/${encodeURIComponent(source)}/raw?generation=${generation}`;
}
