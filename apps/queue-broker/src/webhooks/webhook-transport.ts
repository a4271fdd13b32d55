import { request as httpRequest, type Agent, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/** A receiver's answer is not needed beyond its status: this much of its body is read, then the socket closed. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * POSTs webhooks where the operator allows them, and nowhere else.
 *
 * The address check runs inside the connection, on the addresses the name resolved to (request-filtering-agent
 * hooks the agent's lookup), so a name that resolves to loopback, or changes its answer between a check and the
 * connect (DNS rebinding), is refused like a literal address. Refused unless in WEBHOOK_ALLOWED_NETWORKS:
 * everything that is not global unicast (loopback, private, link-local and so the 169.254.169.254 metadata
 * service, unique-local, carrier-grade NAT, multicast, reserved, IPv4-mapped and other embedded IPv6 forms) and
 * the unspecified address. Redirects are never followed: a 3xx is a failed attempt, as any non-2xx.
 */
export class WebhookTransport {
  private readonly httpAgent: Agent;
  private readonly httpsAgent: Agent;

  constructor(allowedNetworks: string[]) {
    const options = { allowIPAddressList: allowedNetworks, keepAlive: false };
    this.httpAgent = new RequestFilteringHttpAgent(options);
    this.httpsAgent = new RequestFilteringHttpsAgent(options);
  }

  /** Resolves with the receiver's status code; rejects with the reason the attempt failed. */
  post(request: WebhookRequest): Promise<number> {
    const url = new URL(request.url);
    const https = url.protocol === 'https:';
    if (!https && url.protocol !== 'http:') {
      return Promise.reject(new Error(`scheme ${url.protocol} refused`));
    }
    const send = https ? httpsRequest : httpRequest;
    return new Promise<number>((resolve, reject) => {
      const req = send(url, {
        method: 'POST',
        agent: https ? this.httpsAgent : this.httpAgent,
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        signal: AbortSignal.timeout(request.timeoutMs),
      });
      req.on('response', (res: IncomingMessage) => {
        let read = 0;
        const finish = () => {
          res.destroy();
          resolve(res.statusCode ?? 0);
        };
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) finish();
        });
        res.on('end', finish);
        res.on('error', finish);
      });
      req.on('error', (error: Error) =>
        reject(error.name === 'AbortError' ? new Error(`no answer within ${request.timeoutMs} ms`) : error),
      );
      req.end(request.body);
    });
  }
}

/** What of a webhook URL may be logged: scheme, host and port. Paths and queries often carry tokens. */
export function redactedUrl(raw: string): string {
  return URL.canParse(raw) ? `${new URL(raw).origin}/…` : '(not a URL)';
}
