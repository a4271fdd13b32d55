/**
 * The console's client of the gateway's own API (same origin). The key travels only in the Authorization header
 * and lives in sessionStorage: gone with the tab, never in a URL. Signed in by single sign-on instead, the browser
 * sends the HttpOnly session cookie, and every request that changes something carries the session's CSRF token
 * (kept in memory only). Errors are the API's problem+json, kept whole.
 */

const KEY_STORAGE = 'gpucp.console.key';

let csrfToken: string | null = null;

/** The CSRF token of the console session (from GET /console/sso/session), or null when signed in by key. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function storeKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

/** An error answer of the API: its problem+json `detail` and `errors`, or what the network said. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors: string[] = [],
  ) {
    super(detail);
  }
}

interface ProblemBody {
  title?: string;
  detail?: string;
  message?: string;
  errors?: unknown;
}

async function problemOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as ProblemBody;
    const errors = Array.isArray(body.errors) ? body.errors.map(String) : [];
    return new ApiError(
      response.status,
      body.detail ?? body.message ?? body.title ?? response.statusText,
      errors,
    );
  } catch {
    return new ApiError(response.status, text.trim() || `${response.status} ${response.statusText}`);
  }
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** A key other than the stored one (sign-in checks a key before keeping it). */
  key?: string;
  signal?: AbortSignal;
  accept?: string;
}

function headersFor(options: RequestOptions): Record<string, string> {
  const key = options.key ?? storedKey();
  const method = options.method ?? 'GET';
  const changes = method !== 'GET' && method !== 'HEAD';
  return {
    accept: options.accept ?? 'application/json',
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...(!key && csrfToken && changes ? { 'x-csrf-token': csrfToken } : {}),
    ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
  };
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? 'GET',
      headers: headersFor(options),
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
      signal: options.signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, `the API did not answer (${(error as Error).message})`);
  }
  if (!response.ok) throw await problemOf(response);
  if (response.status === 204) return undefined as T;
  const type = response.headers.get('content-type') ?? '';
  return (type.includes('json') ? await response.json() : await response.text()) as T;
}

/** A GET answered as text (the usage CSV export). */
export async function apiText(path: string): Promise<string> {
  const response = await fetch(path, { headers: { ...headersFor({}), accept: 'text/csv' } });
  if (!response.ok) throw await problemOf(response);
  return response.text();
}

/**
 * Reads a `text/event-stream` answer (the logs routes) with fetch, since EventSource cannot send the key in a
 * header. Calls `onData` with each event's parsed `data`; resolves when the server ends the stream.
 */
export async function readEvents(
  path: string,
  onData: (data: unknown, event: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch(path, { headers: headersFor({ accept: 'text/event-stream' }), signal });
  if (!response.ok) throw await problemOf(response);
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length === 0) continue; // a heartbeat comment
      try {
        onData(JSON.parse(data.join('\n')), event);
      } catch {
        onData(data.join('\n'), event);
      }
    }
  }
}
