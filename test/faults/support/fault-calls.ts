// The HTTP calls and the polls of the fault scenarios.

export interface Reply<T = Record<string, unknown>> {
  status: number;
  contentType: string;
  body: T;
  ms: number;
}

/**
 * One HTTP call with a bearer key; status 0 when there was no answer (connection refused or reset, or no answer
 * within `timeoutMs`, then `timedOut`).
 */
export async function call<T = Record<string, unknown>>(
  method: string,
  url: string,
  key: string,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<Reply<T> & { timedOut?: boolean; error?: string }> {
  const started = Date.now();
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: parsed as T,
      ms: Date.now() - started,
    };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    return {
      status: 0,
      contentType: '',
      body: undefined as T,
      ms: Date.now() - started,
      timedOut,
      error: (error as Error).message,
    };
  }
}

/** Polls `fn` until it returns a truthy value; null when `timeoutMs` passed first. */
export async function until<T>(
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch {
      // not yet (a dependency may still be down)
    }
    if (Date.now() > deadline) return null;
    await sleep(intervalMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
