import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocketServer } from 'ws';

/**
 * An example load-balancing (LB) worker: a plain HTTP server, no SDK, the way the hosted service runs one. It
 * serves on PORT and answers the platform's health check `GET /ping` on PORT_HEALTH (the same port when unset):
 * 204 while it initializes (INIT_MS, default 0), then 200. Routes, for trying an LB endpoint out:
 *
 * - `GET /` → `{"worker": "<pod id>"}`: which worker answered.
 * - `POST /echo` → the request body back, with the worker's id (`{"worker", "body"}`).
 * - `GET /stream?n=5&gapMs=200` → server-sent events, `n` of them `gapMs` apart, each sent as it is made.
 * - `GET|POST /slow?ms=1000` → answers after `ms` (a long request, to watch draining and retries).
 * - `POST /health` `{"status": 503}` → what `/ping` answers from now on (200 puts the worker back).
 * - `GET /ws` (WebSocket) → the worker's id as a first message, then every message echoed back.
 */
const port = Number(process.env.PORT ?? 80);
const healthPort = Number(process.env.PORT_HEALTH ?? port);
const worker = process.env.RUNPOD_POD_ID ?? 'local';
const readyAt = Date.now() + Number(process.env.INIT_MS ?? 0);
let pingStatus = 200;

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function ping(res: ServerResponse): void {
  res.writeHead(Date.now() < readyAt ? 204 : pingStatus);
  res.end();
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://worker');
  const query = (name: string, fallback: number) => Number(url.searchParams.get(name) ?? fallback);
  if (url.pathname === '/ping' && req.method === 'GET') return ping(res);
  if (url.pathname === '/' && req.method === 'GET') return json(res, 200, { worker });
  if (url.pathname === '/echo' && req.method === 'POST') {
    return json(res, 200, { worker, body: await readBody(req) });
  }
  if (url.pathname === '/slow') {
    await readBody(req);
    await sleep(query('ms', 1000));
    return json(res, 200, { worker, sleptMs: query('ms', 1000) });
  }
  if (url.pathname === '/stream' && req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const n = query('n', 5);
    for (let i = 0; i < n; i++) {
      if (i > 0) await sleep(query('gapMs', 200));
      res.write(`data: ${JSON.stringify({ worker, i, at: Date.now() })}\n\n`);
    }
    return void res.end();
  }
  if (url.pathname === '/health' && req.method === 'POST') {
    const status = Number((JSON.parse((await readBody(req)) || '{}') as { status?: unknown }).status);
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      return json(res, 400, { error: 'send {"status": <200..599>}' });
    }
    pingStatus = status;
    return json(res, 200, { worker, pingStatus });
  }
  json(res, 404, { error: `no route ${req.method} ${url.pathname}` });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: Error) => {
    if (!res.headersSent) json(res, 500, { error: error.message });
    else res.destroy();
  });
});
// WebSocket: the way a ComfyUI-like worker pushes progress; `noServer` so the HTTP routes above stay plain Node.
const sockets = new WebSocketServer({ noServer: true });
server.on('upgrade', (req, socket, head) => {
  if (new URL(req.url ?? '/', 'http://worker').pathname !== '/ws') {
    socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
    return;
  }
  sockets.handleUpgrade(req, socket, head, (ws) => {
    ws.send(JSON.stringify({ worker }));
    ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
  });
});
server.listen(port, () => console.log(`lb worker ${worker} serving on ${port}, /ping on ${healthPort}`));
if (healthPort !== port) {
  createServer((req, res) => (req.url === '/ping' ? ping(res) : json(res, 404, {}))).listen(healthPort);
}
// Stopped by the platform: finish what is under way, take nothing new.
process.once('SIGTERM', () => server.close(() => process.exit(0)));
