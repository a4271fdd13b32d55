import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { natsServerCommand } from './infra-control.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A JetStream cluster of `size` nats-servers on loopback, as deploy/components/nats-cluster runs three in
 * Kubernetes: each with its own store, routes to all, one cluster name. Servers can be killed and started again.
 */
export class NatsCluster {
  private readonly processes = new Map<number, ChildProcess>();

  private constructor(
    private readonly dir: string,
    private readonly clientPorts: number[],
    private readonly configs: string[],
  ) {}

  static async start(size = 3): Promise<NatsCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'gpucp-nats-cluster-'));
    const clientPorts = await Promise.all(Array.from({ length: size }, freePort));
    const routePorts = await Promise.all(Array.from({ length: size }, freePort));
    const routes = routePorts.map((p) => `nats-route://127.0.0.1:${p}`).join(', ');
    const configs = clientPorts.map((port, i) => {
      const store = join(dir, `n${i + 1}`);
      mkdirSync(store);
      const file = join(dir, `n${i + 1}.conf`);
      writeFileSync(
        file,
        [
          `server_name: n${i + 1}`,
          `listen: 127.0.0.1:${port}`,
          `jetstream { store_dir: "${store}" }`,
          `cluster { name: gpucp-faults, listen: 127.0.0.1:${routePorts[i]}, routes: [${routes}] }`,
        ].join('\n'),
      );
      return file;
    });
    const cluster = new NatsCluster(dir, clientPorts, configs);
    for (let i = 0; i < size; i++) cluster.startServer(i);
    await cluster.untilJetStream();
    return cluster;
  }

  /** The client URLs of every server, comma-separated (NATS_URL). */
  get urls(): string {
    return this.clientPorts.map((p) => `nats://127.0.0.1:${p}`).join(',');
  }

  /** `n1` … by index, as JetStream names the servers (a stream's `cluster.leader`). */
  indexOf(serverName: string): number {
    return Number(serverName.slice(1)) - 1;
  }

  startServer(index: number): void {
    const child = spawn(natsServerCommand(), ['-c', this.configs[index]], { stdio: 'ignore' });
    this.processes.set(index, child);
  }

  async kill(index: number): Promise<void> {
    const child = this.processes.get(index);
    if (!child || child.exitCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
    this.processes.delete(index);
  }

  /** The server that leads `stream`, once its replicas have one (after a server's death they elect a new one). */
  async leaderOf(stream: string, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    const nc = await connect({ servers: this.urls.split(','), timeout: 5000 });
    try {
      // Right after a server's death the JetStream API itself may not answer (its meta leader may have been the
      // one killed): every step is asked again until the deadline.
      let jsm: Awaited<ReturnType<typeof jetstreamManager>> | null = null;
      for (;;) {
        jsm ??= await jetstreamManager(nc, { timeout: 2000 }).catch(() => null);
        const leader = jsm
          ? await jsm.streams.info(stream).then(
              (info) => info.cluster?.leader ?? '',
              () => '',
            )
          : '';
        if (leader || Date.now() > deadline) return leader;
        await sleep(200);
      }
    } finally {
      await nc.close();
    }
  }

  /** Replicas of `stream`: its configured count and how many are current. */
  async replicasOf(stream: string): Promise<{ configured: number; current: number }> {
    const nc = await connect({ servers: this.urls.split(','), timeout: 5000 });
    try {
      const info = await (await jetstreamManager(nc)).streams.info(stream);
      const followers = info.cluster?.replicas ?? [];
      return {
        configured: info.config.num_replicas,
        current: 1 + followers.filter((r) => r.current).length,
      };
    } finally {
      await nc.close();
    }
  }

  async stop(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((i) => this.kill(i)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Until the cluster has elected its JetStream meta leader (a stream can be created). */
  private async untilJetStream(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const nc = await connect({ servers: this.urls.split(','), timeout: 2000 });
        try {
          await (await jetstreamManager(nc, { timeout: 2000 })).getAccountInfo();
          return;
        } finally {
          await nc.close();
        }
      } catch (error) {
        if (Date.now() > deadline) {
          throw new Error(`the NATS cluster did not form: ${(error as Error).message}`, { cause: error });
        }
        await sleep(250);
      }
    }
  }
}
