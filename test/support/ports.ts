import { randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:net';

/**
 * Where freePorts looks: below Linux's ephemeral range (32768–60999), in a block of its own for each jest worker.
 * A port found free is released before the app listens on it, and in that moment a port of the ephemeral range can
 * be taken by any process's `connect()` or `listen(0)`, another jest worker's among them (seen with three workers:
 * an app's EADDRINUSE). Below that range only our own choices land, and each worker chooses in its own block.
 */
const PORT_BASE = 12_000;
const PORT_BLOCK = 1_000;
const PORT_BLOCKS = 20; // 12000–31999
const portBlock = PORT_BASE + ((Number(process.env.JEST_WORKER_ID ?? 1) - 1) % PORT_BLOCKS) * PORT_BLOCK;
/** Where the next search starts in the block: random, so that files run one after another do not reuse ports. */
let nextPort = randomInt(PORT_BLOCK);

/** Listens on `port` of 127.0.0.1; the server, or null if the port is taken. */
function holdPort(port: number): Promise<Server | null> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(null) : reject(error),
    );
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/**
 * Distinct free ports of 127.0.0.1 in this worker's block: each is listened on and released only once all are
 * found.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let tried = 0; ports.length < count; tried++) {
      if (tried >= PORT_BLOCK) {
        throw new Error(`no ${count} free ports in ${portBlock}–${portBlock + PORT_BLOCK - 1}`);
      }
      const port = portBlock + (nextPort++ % PORT_BLOCK);
      const server = await holdPort(port);
      if (!server) continue;
      servers.push(server);
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
