import http from 'node:http';
import https from 'node:https';

/** A response read to its end: the worker's answers are small JSON documents (a job, a list of stops, `{}`). */
export interface HttpResponse {
  status: number;
  /** 2xx. */
  ok: boolean;
  body: string;
}

export interface HttpRequestInit {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Aborts the request (and the reading of its answer) when it fires. */
  signal?: AbortSignal;
}

/**
 * The worker's HTTP calls, on keep-alive connections of node:http and node:https. A worker makes one job-done POST
 * per job and holds long polls open, so the client's cost per request is part of every job's: fetch (undici)
 * spent about 300 µs of CPU on a small POST where node:http spends about 80 µs (a loop of POSTs to a local server,
 * Node 24, issue 13). Node's client closes an idle connection before the server's `Keep-Alive: timeout` does, and a
 * request that fails anyway is retried by the caller, as any network error is.
 */
export class HttpClient {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };

  request(url: string, init: HttpRequestInit = {}): Promise<HttpResponse> {
    const target = new URL(url);
    const agent = this.agents[target.protocol as keyof HttpClient['agents']];
    if (!agent) return Promise.reject(new Error(`unsupported URL scheme ${target.protocol} in ${url}`));
    const headers: Record<string, string | number> = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body);
    const send = target.protocol === 'https:' ? https.request : http.request;
    return new Promise<HttpResponse>((resolve, reject) => {
      const req = send(
        target,
        { method: init.method ?? 'GET', agent, headers, ...(init.signal ? { signal: init.signal } : {}) },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('error', reject);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            resolve({ status, ok: status >= 200 && status < 300, body });
          });
          // Closed before its end (the server or the network went away): an error, never a short body.
          res.on('close', () => {
            if (!res.complete) reject(new Error(`the connection closed before the answer to ${url} ended`));
          });
        },
      );
      req.on('error', reject);
      req.end(init.body);
    });
  }

  /** Closes the idle connections (in-flight requests end on their own or by their signal). */
  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}
