import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { APP_NAMES, type AppName } from '@app/contracts';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

const INTERNAL_APPS = APP_NAMES.filter((app) => app !== 'gateway');

/**
 * Every listening TCP socket of this host (its network namespace) on `port`, as the kernel lists it: the address
 * really bound, whatever the process printed. `/proc/net/tcp{,6}`: local address in hex, state 0A = LISTEN.
 */
function listeningOn(port: number): string[] {
  const found: string[] = [];
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6 on this host
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      const [hexAddress, hexPort] = local.split(':');
      if (state !== '0A' || Number.parseInt(hexPort, 16) !== port) continue;
      found.push(v6 ? ipv6(hexAddress) : ipv4(hexAddress));
    }
  }
  return found;
}

/** `0100007F` → 127.0.0.1 (the kernel writes the 32-bit address in host byte order, little-endian here). */
function ipv4(hex: string): string {
  return [6, 4, 2, 0].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join('.');
}

function ipv6(hex: string): string {
  if (/^0+$/.test(hex)) return '::';
  if (hex === '00000000000000000000000001000000') return '::1';
  if (hex.startsWith('0000000000000000FFFF0000')) return `::ffff:${ipv4(hex.slice(24))}`;
  return hex;
}

const portOf = (url: string) => Number(new URL(url).port);

/** Resolves true if a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * Where the apps listen when nothing says otherwise (docs/adr/0014-edge-hardening.md): the internal apps and
 * every /metrics on loopback, the gateway's HTTP port on every interface, /metrics never on an HTTP port; and the
 * start-up line says what the kernel says.
 */
describe('bind addresses by default', () => {
  let db: TestDatabase;
  let system: RunningSystem;

  beforeAll(async () => {
    db = await createTestDatabase('listen');
    // HTTP_HOST undefined: the harness's 127.0.0.1 removed, so each app binds its own default.
    system = await startApps({
      databaseUrl: db.url,
      env: { HTTP_HOST: undefined, LOG_LEVEL: 'info' },
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated' },
        'endpoint-autoscaler': { AUTOSCALER_ENABLED: 'false' },
      },
    });
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it.each(INTERNAL_APPS)('%s listens on loopback only, and says so', (app: AppName) => {
    const port = portOf(system.url(app));
    expect(listeningOn(port)).toEqual(['127.0.0.1']);
    expect(system.logs(app)).toContain(`listening on 127.0.0.1:${port} (loopback only)`);
  });

  it('the gateway listens on every interface, and says so (not 127.0.0.1)', () => {
    const port = portOf(system.url('gateway'));
    expect(listeningOn(port)).toEqual(['0.0.0.0']);
    expect(system.logs('gateway')).toContain(`gateway listening on 0.0.0.0:${port},`);
  });

  it.each([...APP_NAMES])('%s serves /metrics on its own port, on loopback only', async (app: AppName) => {
    const port = portOf(system.metricsUrl(app));
    expect(listeningOn(port)).toEqual(['127.0.0.1']);
    expect(system.logs(app)).toContain(`metrics on 127.0.0.1:${port}/metrics (loopback only)`);
    const reply = await fetch(system.metricsUrl(app));
    expect(reply.status).toBe(200);
    expect(await reply.text()).toMatch(/^process_cpu_seconds_total /m);
  });

  it("serves no /metrics on any HTTP port (the gateway's is public)", async () => {
    for (const app of APP_NAMES) {
      const reply = await fetch(`${system.url(app)}/metrics`);
      expect({ app, status: reply.status }).toEqual({ app, status: 404 });
      expect(await reply.text()).not.toMatch(/process_cpu_seconds_total/);
    }
  });

  it("from this host's other addresses, only the gateway's HTTP port answers", async () => {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    // A host without a non-loopback interface has no "outside" to test from; /proc above already shows the binds.
    const targets = external ? [external] : [];
    for (const host of targets) {
      expect(await accepts(host, portOf(system.url('gateway')))).toBe(true);
      for (const app of INTERNAL_APPS) expect(await accepts(host, portOf(system.url(app)))).toBe(false);
      for (const app of APP_NAMES) expect(await accepts(host, portOf(system.metricsUrl(app)))).toBe(false);
    }
    expect(listeningOn(portOf(system.url('gateway')))).toEqual(['0.0.0.0']);
  });
});
