/**
 * The CLI's only way to the platform: the public REST API (management v2 and the serverless job routes) with a
 * bearer API key. Errors come back as problem+json; each becomes an ApiError whose message says what to do.
 */
export interface ApiSettings {
  /** The gateway's origin, e.g. https://gpucp.example.com (GPUCP_API_URL). */
  url: string;
  /** An API key `cpk_…` (GPUCP_API_KEY). */
  key: string;
}

/** A refusal or failure the user should read: the message is printed as is, the process exits non-zero. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface Problem {
  title?: string;
  detail?: string;
  errors?: string[];
}

export class ApiClient {
  constructor(private readonly settings: ApiSettings) {}

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, body);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, body);
  }

  /** DELETE; `T` when the route answers a body (a removed host's view), void for 204. */
  delete<T = void>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  /** A streaming GET (server-sent events): the response, its body not yet read. */
  async stream(path: string): Promise<Response> {
    const response = await this.fetch('GET', path, undefined, { accept: 'text/event-stream' });
    if (!response.ok) throw await this.failure(response);
    return response;
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.fetch(method, path, body);
    if (!response.ok) throw await this.failure(response);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private async fetch(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const url = `${this.settings.url.replace(/\/+$/, '')}${path}`;
    try {
      return await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.settings.key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
      throw new ApiError(
        `cannot reach the API at ${this.settings.url} (${cause}); check GPUCP_API_URL or --api-url`,
        0,
      );
    }
  }

  private async failure(response: Response): Promise<ApiError> {
    const text = await response.text();
    let problem: Problem;
    try {
      problem = JSON.parse(text) as Problem;
    } catch {
      problem = { detail: text.slice(0, 500) };
    }
    const detail = [problem.detail ?? problem.title ?? response.statusText, ...(problem.errors ?? [])].join(
      '; ',
    );
    if (response.status === 401) {
      return new ApiError(
        `authentication failed (401): ${detail}. Check the API key (GPUCP_API_KEY or --api-key)`,
        401,
      );
    }
    if (response.status === 403) {
      return new ApiError(`forbidden (403): ${detail}. The key's scope may not allow this`, 403);
    }
    return new ApiError(`${problem.title ?? 'error'} (${response.status}): ${detail}`, response.status);
  }
}
