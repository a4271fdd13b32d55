import { Agent, request } from 'node:http';

/** One request exactly as a hostile client sends it: any bytes, any headers, any (declared) length. */
export interface RawRequest {
  method: string;
  /** Path and query as sent on the request line (already percent-encoded where needed). */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /**
   * A Content-Length larger than `body`: only `body` (a first slice) is written, then the answer is awaited and the
   * connection dropped (the server must refuse from the header alone, as for an oversized upload).
   */
  declaredLength?: number;
}

export interface RawReply {
  /** 0 when there was no HTTP answer (connection refused or reset, or none within the timeout). */
  status: number;
  contentType: string;
  text: string;
  error?: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** Sends one request to `base` (http://host:port); never throws. */
export function sendRaw(base: string, req: RawRequest, timeoutMs = 30_000): Promise<RawReply> {
  const url = new URL(base);
  return new Promise<RawReply>((resolve) => {
    let settled = false;
    const finish = (reply: RawReply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(reply);
    };
    const partial = req.declaredLength !== undefined;
    const length = req.declaredLength ?? req.body?.length;
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        // A request whose body is cut short cannot leave its socket to the next one.
        agent: partial ? false : agent,
        headers: { ...req.headers, ...(length !== undefined ? { 'content-length': String(length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          if (partial) outgoing.destroy();
          finish({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', (error) => finish({ status: 0, contentType: '', text: '', error: error.message }));
      },
    );
    const timer = setTimeout(() => {
      outgoing.destroy();
      finish({ status: 0, contentType: '', text: '', error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      // Writing the rest of a refused oversized body races the server closing the connection.
      if (partial && (error.code === 'EPIPE' || error.code === 'ECONNRESET')) return;
      finish({ status: 0, contentType: '', text: '', error: error.message });
    });
    if (req.body) outgoing.write(req.body);
    if (!partial) outgoing.end();
  });
}

export function closeAgent(): void {
  agent.destroy();
}
