import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import {
  ROOT,
  LOCAL_DIR,
  NATS_PORT,
  LOCAL_HOST,
  InfraError,
  log,
  oneLine,
  poll,
  which,
  canAptInstall,
  aptInstall,
  isListening,
} from './infra-process.mjs';

// ---------------------------------------------------------------------------------------------------------------
// NATS

function natsAddress(natsUrl) {
  const first = natsUrl.split(',')[0].trim();
  const url = new URL(first.includes('://') ? first : `nats://${first}`);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || NATS_PORT) };
}

/** Connects and reads the server's INFO line; resolves `{ info }` or `{ error }` (never rejects). */
function readNatsInfo({ host, port }) {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 5000 });
    let buffer = '';
    const done = (result) => {
      socket.destroy();
      resolve(result);
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buffer += chunk;
      const end = buffer.indexOf('\r\n');
      if (end === -1 && buffer.length < 64 * 1024) return;
      const line = buffer.slice(0, end === -1 ? undefined : end);
      try {
        if (!line.startsWith('INFO ')) throw new Error('not INFO');
        done({ info: JSON.parse(line.slice(5)) });
      } catch {
        done({ error: new InfraError(`${host}:${port} does not look like a NATS server`) });
      }
    });
    socket.once('timeout', () =>
      done({ error: new InfraError(`${host}:${port} sent no NATS INFO within 5 s`) }),
    );
    socket.once('error', (error) => done({ error }));
    socket.once('close', () => done({ error: new InfraError(`${host}:${port} closed the connection`) }));
  });
}

function assertJetStream(serverInfo, where) {
  if (serverInfo.jetstream !== true) {
    throw new InfraError(`NATS at ${where} does not have JetStream enabled: restart nats-server with -js`);
  }
}

/**
 * Makes sure a NATS server with JetStream is reachable and returns its URL. With a URL (argument or NATS_URL) it
 * only checks it. Otherwise it uses 127.0.0.1:4222, starting nats-server there (data in .local/nats, log in
 * .local/nats.log), or installing it as root on Debian/Ubuntu, when nothing listens.
 */
export async function ensureNats(natsUrl = process.env.NATS_URL) {
  if (natsUrl) {
    const { info: serverInfo, error } = await readNatsInfo(natsAddress(natsUrl));
    if (error) throw new InfraError(`cannot reach NATS at ${natsUrl}: ${oneLine(error)}`);
    assertJetStream(serverInfo, natsUrl);
    log(`NATS: ${natsUrl} (nats-server ${serverInfo.version})`);
    return natsUrl;
  }
  const url = `nats://${LOCAL_HOST}:${NATS_PORT}`;
  const address = { host: LOCAL_HOST, port: NATS_PORT };
  let result = await readNatsInfo(address);
  if (result.error && !(await isListening(NATS_PORT))) {
    const server = await startLocalNats();
    result = await poll(async () => {
      if (server.exited) {
        return { error: new InfraError('nats-server exited right after starting (see .local/nats.log)') };
      }
      const attempt = await readNatsInfo(address);
      return attempt.info ? attempt : undefined;
    }, 20_000);
    result ??= {
      error: new InfraError(
        `nats-server did not accept connections on ${url} within 20 s (see .local/nats.log)`,
      ),
    };
  }
  if (result.error) throw new InfraError(`cannot use NATS at ${url}: ${oneLine(result.error)}`);
  assertJetStream(result.info, url);
  log(`NATS: ${url} (nats-server ${result.info.version})`);
  return url;
}

async function startLocalNats() {
  const findServer = () => which('nats-server', ['/usr/sbin']);
  let binary = findServer();
  if (!binary) {
    if (!canAptInstall()) {
      throw new InfraError(
        'NATS is not installed: install nats-server 2.9+ (apt-get install nats-server, or https://nats.io/download) or set NATS_URL',
      );
    }
    await aptInstall('nats-server');
    binary = findServer();
    if (!binary) throw new InfraError('apt-get installed nats-server but no nats-server binary was found');
    if (await isListening(NATS_PORT)) return { exited: false }; // the package's service started it
  }
  const storeDir = join(LOCAL_DIR, 'nats');
  mkdirSync(storeDir, { recursive: true });
  log(`starting ${binary} on ${LOCAL_HOST}:${NATS_PORT} (store .local/nats, log .local/nats.log)`);
  const args = [
    '-a',
    LOCAL_HOST,
    '-p',
    String(NATS_PORT),
    '-js',
    '-sd',
    storeDir,
    '-l',
    join(LOCAL_DIR, 'nats.log'),
  ];
  const child = spawn(binary, args, { cwd: ROOT, detached: true, stdio: 'ignore' });
  const server = { exited: false };
  child.on('exit', () => (server.exited = true));
  child.on('error', () => (server.exited = true));
  child.unref();
  return server;
}

/**
 * Deletes every JetStream stream named `<prefix>_…` (and key-value buckets, streams `KV_<prefix>_…`). With
 * `{ anySuffix: true }` it deletes everything whose name starts with `prefix` or `KV_<prefix>` (test runs whose
 * systems use derived prefixes). Returns the deleted stream names.
 */
export async function deleteNatsStreams(natsUrl, prefix, { anySuffix = false } = {}) {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const starts = anySuffix ? [prefix, `KV_${prefix}`] : [`${prefix}_`, `KV_${prefix}_`];
  const nc = await connect({ servers: natsUrl.split(','), timeout: 5000 });
  const deleted = [];
  try {
    const jsm = await jetstreamManager(nc);
    const names = [];
    for await (const si of jsm.streams.list()) names.push(si.config.name);
    for (const name of names.filter((n) => starts.some((start) => n.startsWith(start)))) {
      await jsm.streams.delete(name);
      deleted.push(name);
    }
  } finally {
    await nc.close();
  }
  return deleted;
}
