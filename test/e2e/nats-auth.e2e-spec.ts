import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { BusConfig, loadConfig } from '@app/config';
import { APP_NAMES } from '@app/contracts';
import { NatsClient, natsAuth, natsConnectionOptions } from '@app/messaging';
import { ROOT } from '../support/paths.js';
import { freePorts, startApps } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

const APPS = APP_NAMES;
const passwordVariable = (app: string) => `NATS_PASSWORD_${app.toUpperCase().replaceAll('-', '_')}`;

/**
 * A private nats-server that requires authentication exactly as deploy/ configures it: the `authorization` block of
 * deploy/base/nats/nats.conf, with each app's password in the environment (as the StatefulSet gets them from the
 * Secret nats-credentials). Debian's 2.9 runs it; the rest of deploy's config (sync_interval) needs 2.10.
 */
class AuthNats {
  readonly passwords = Object.fromEntries(
    APPS.map((app) => [app, `n${randomBytes(18).toString('base64url')}`]),
  );
  private child: ChildProcess | null = null;
  private dir = '';
  url = '';
  monitorUrl = '';

  async start(): Promise<void> {
    const binary = ['/usr/sbin/nats-server', '/usr/local/bin/nats-server'].find(existsSync);
    if (!binary) throw new Error('nats-server is not installed (apt-get install nats-server)');
    const deployed = readFileSync(join(ROOT, 'deploy/base/nats/nats.conf'), 'utf8');
    const authorization = /^authorization \{[\s\S]*?^\}/m.exec(deployed)?.[0];
    if (!authorization) throw new Error('deploy/base/nats/nats.conf has no authorization block');
    this.dir = mkdtempSync(join(tmpdir(), 'gpucp-nats-auth-'));
    const [port, monitor] = await freePorts(2);
    const config = join(this.dir, 'nats.conf');
    writeFileSync(
      config,
      `listen: "127.0.0.1:${port}"\nhttp: "127.0.0.1:${monitor}"\n${authorization}\n` +
        `jetstream { store_dir: "${join(this.dir, 'js')}" }\n`,
    );
    const env = Object.fromEntries(APPS.map((app) => [passwordVariable(app), this.passwords[app]]));
    this.child = spawn(binary, ['-c', config], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
    this.url = `nats://127.0.0.1:${port}`;
    this.monitorUrl = `http://127.0.0.1:${monitor}`;
    const deadline = Date.now() + 10_000;
    while (
      !(await fetch(`${this.monitorUrl}/healthz`)
        .then((r) => r.ok)
        .catch(() => false))
    ) {
      if (Date.now() > deadline) throw new Error('the private nats-server did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Who is connected, as the server sees it: connection name and authenticated user. */
  async connections(): Promise<{ name?: string; authorized_user?: string }[]> {
    const body = (await (await fetch(`${this.monitorUrl}/connz?auth=true`)).json()) as {
      connections: { name?: string; authorized_user?: string }[];
    };
    return body.connections;
  }

  async stop(): Promise<void> {
    if (this.child && this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child?.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** NATS with authentication (docs/adr/0015): the apps log in with NATS_USER/NATS_PASSWORD; nobody else gets in. */
describe('NATS authentication', () => {
  const nats = new AuthNats();
  let db: TestDatabase;

  beforeAll(async () => {
    await nats.start();
    db = await createTestDatabase('nats_auth', { apps: ['endpoint-autoscaler'] });
  });

  afterAll(async () => {
    await nats.stop();
    await db?.drop();
  });

  it("lets each app's user in with its password, and nobody without", async () => {
    for (const app of APPS) {
      const config = loadConfig(BusConfig, {
        NATS_URL: nats.url,
        NATS_USER: app,
        NATS_PASSWORD: nats.passwords[app],
      });
      expect(natsConnectionOptions(config.NATS_URL, app, natsAuth(config))).toMatchObject({
        servers: [nats.url],
        name: app,
        user: app,
        pass: nats.passwords[app],
      });
      const client = await NatsClient.connect(config.NATS_URL, 'authtest', app, natsAuth(config));
      expect((await nats.connections()).map((c) => c.authorized_user)).toContain(app);
      await client.drain();
    }
    const refused = /authorization violation/i;
    await expect(connect({ servers: nats.url, timeout: 3000 })).rejects.toThrow(refused);
    await expect(
      connect({ servers: nats.url, user: 'gateway', pass: 'not-its-password', timeout: 3000 }),
    ).rejects.toThrow(refused);
    await expect(
      connect({ servers: nats.url, user: 'gateway', pass: nats.passwords['queue-broker'], timeout: 3000 }),
    ).rejects.toThrow(refused);
  });

  it('runs an app with its credentials from the environment; without them it does not start', async () => {
    const env = { NATS_URL: nats.url, AUTOSCALER_ENABLED: 'false' };
    const system = await startApps({
      apps: ['endpoint-autoscaler'],
      databaseUrl: db.url,
      env: { ...env, NATS_USER: 'endpoint-autoscaler', NATS_PASSWORD: nats.passwords['endpoint-autoscaler'] },
    });
    try {
      expect(await nats.connections()).toContainEqual(
        expect.objectContaining({ name: 'endpoint-autoscaler', authorized_user: 'endpoint-autoscaler' }),
      );
    } finally {
      await system.stop();
    }
    await expect(
      startApps({ apps: ['endpoint-autoscaler'], databaseUrl: db.url, env, readyTimeoutMs: 15_000 }),
    ).rejects.toThrow(/authorization violation/i);
  });
});
