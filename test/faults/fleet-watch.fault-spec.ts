import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Subjects, deriveId, type HostListView, type HostState, type HostView } from '@app/contracts';
import { closeBus, commandEnvelope, publishCommand } from '../support/bus.js';
import { keysCli, type TestKey } from '../support/accounts.js';
import { FakeKubeApi } from '../support/fake-kube-api.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { writeFleet } from '../e2e/clusters-fixtures.js';
import { leaderReplica } from './support/coordination.js';
import { call, sleep, until } from './support/fault-calls.js';
import { REPLICATED } from './support/fault-system.js';
import {
  FleetNodes,
  PRODUCT_MAP,
  XID_CONDITION,
  chainFaults,
  differences,
  hostEvents,
  lastOutboxSeq,
  watchCommands,
} from './support/fleet-nodes.js';
import { recordVerdict } from './support/verdict.js';

/**
 * The live fleet's node watch (docs/adr/0039) against the real apps: two cluster-scheduler replicas, two pod-lifecycle
 * replicas with the Kubernetes runtime on a fake Kubernetes API served from this process (test/support/fake-kube-api.ts,
 * through a kubeconfig file), and the gateway, whose `GET /v2/fleet/hosts` (an operator's key) the hosts are read from.
 * 12 GPU nodes in two zones are discovered; then every scheduler replica is SIGKILLed, nodes change while it is down,
 * the node watch's leader is SIGKILLed and restarted, and the schedulers come back. Within CONVERGE_MS every host
 * must match its node (state, GPU type and count, data center; deleted nodes GONE, new ones READY), stay so, and the
 * scheduler's history must hold each change once: its host-changed events chain from the states before to the states
 * after with no extra transition, and no host change of the node watch applied twice.
 *   1. The watch is behind: its stream stalls (the fake holds its events), the history is compacted, the stream
 *      ends, and the watch's resourceVersion is too old: 410 Gone, then lists until the scheduler answers.
 *   2. The watch's commands are left unapplied: with the watch live, a cordon is issued while no scheduler runs (it is
 *      recorded in the commands stream behind BACKLOG other fleet commands, and applied when the scheduler is back,
 *      which answers queries meanwhile), and the node is uncordoned after: the watch must list the hosts only once
 *      the scheduler applied it (FleetPort.settled), or the late cordon outlives the comparison.
 */
const NODES = 12;
const CONVERGE_MS = 60_000;
const WATCH = 'pod-lifecycle/kube-node-watch';
const BACKLOG = 300;
const node = (i: number) => FleetNodes.spec(i).name;

let api: FakeKubeApi;
let fleet: FleetNodes;
let db: TestDatabase;
let system: RunningSystem;
let sql: pg.Pool;
let operator: TestKey;

async function hosts(): Promise<HostView[]> {
  const url = `${system.url('gateway')}/v2/fleet/hosts?source=kubernetes&limit=1000`;
  const reply = await call<HostListView>('GET', url, operator.key, undefined, 10_000);
  if (reply.status !== 200) throw new Error(`GET /v2/fleet/hosts: ${reply.status}`);
  return reply.body.hosts;
}

const states = (list: HostView[]) => new Map<string, HostState>(list.map((h) => [h.id, h.state]));

/** Ms from `since` until every host matches its node; null (and the differences) when CONVERGE_MS passed. */
async function converge(since: number): Promise<{ ms: number | null; left: string[] }> {
  let left: string[] = ['no answer'];
  const done = await until(
    async () => {
      left = differences(fleet.expected(), await hosts());
      return left.length === 0;
    },
    CONVERGE_MS - (Date.now() - since),
  );
  return { ms: done ? Date.now() - since : null, left };
}

async function restartSchedulers(): Promise<number> {
  const at = Date.now();
  await Promise.all(
    Array.from({ length: system.replicas('cluster-scheduler') }, (_, r) =>
      system.restart('cluster-scheduler', {}, r),
    ),
  );
  return at;
}

/** The node watch's leader SIGKILLed and started again; the other replica takes the watch over. */
async function killWatchLeader(): Promise<number> {
  const leader = await leaderReplica(system, 'pod-lifecycle', WATCH);
  if (leader === null) throw new Error('no pod-lifecycle replica leads the node watch');
  await system.kill('pod-lifecycle', 'SIGKILL', leader);
  await system.restart('pod-lifecycle', {}, leader);
  return leader;
}

interface Outcome {
  convergedMs: number | null;
  left: string[];
  faults: string[];
  counts: Record<string, number>;
}

/** Converged, still so a moment later, and the history since `seq`/`since` holds each change once. */
async function judge(
  restartedAt: number,
  before: Map<string, HostState>,
  seq: number,
  since: Date,
  allowed: Record<string, number>,
  settled: () => Promise<boolean> = () => Promise.resolve(true),
): Promise<Outcome> {
  const { ms, left } = await converge(restartedAt);
  // What was still in the commands stream is applied by now; the hosts must not have moved.
  await until(settled, 20_000);
  await sleep(2000);
  const after = await hosts();
  const still = ms === null ? left : differences(fleet.expected(), after);
  const now = states(after);
  const chain = chainFaults(await hostEvents(sql, seq), before, now);
  const extra: string[] = [];
  for (const [hostId, n] of chain.transitions) {
    const minimal = (before.get(hostId) ?? 'GONE') === now.get(hostId) ? 0 : 1;
    if (n > minimal + (allowed[hostId] ?? 0)) extra.push(`${hostId}: ${n} state changes, ${minimal} needed`);
  }
  const commands = await watchCommands(sql, since);
  const faults = [...still, ...chain.lines, ...extra, ...commands.repeated];
  if (commands.refused) faults.push(`${commands.refused} node watch command(s) refused`);
  return {
    convergedMs: ms,
    left: still,
    faults,
    counts: {
      hosts: after.length,
      events: [...chain.transitions.values()].reduce((a, b) => a + b, 0),
      commands: commands.processed,
      refused: commands.refused,
      appliedTwice: commands.repeated.length,
      extraTransitions: extra.length,
      convergedAfterMs: ms ?? -1,
    },
  };
}

beforeAll(async () => {
  api = new FakeKubeApi('gpucp-pods');
  await api.start();
  fleet = new FleetNodes(api.nodes);
  for (let i = 1; i <= NODES; i++) fleet.put(FleetNodes.spec(i));
  const dir = mkdtempSync(join(tmpdir(), 'fleet-watch-'));
  const kubeConfig = join(dir, 'kubeconfig');
  writeFileSync(kubeConfig, api.kubeConfig().exportConfig());
  db = await createTestDatabase('fleet_watch');
  system = await startApps({
    apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
    databaseUrl: db.url,
    env: { RATE_LIMITS_ENABLED: 'false', COMMAND_ACK_WAIT_MS: '5000' },
    replicas: {
      gateway: REPLICATED.gateway,
      'cluster-scheduler': REPLICATED['cluster-scheduler'],
      'pod-lifecycle': REPLICATED['pod-lifecycle'],
    },
    readyTimeoutMs: 90_000,
    appEnv: {
      // The catalog (A100, H100; US-TX-3, EU-RO-1) and no hosts: the nodes are the fleet.
      'cluster-scheduler': { FLEET_FILE: writeFleet([]) },
      'pod-lifecycle': {
        RUNTIME_DRIVER: 'kubernetes',
        KUBE_CONFIG: kubeConfig,
        KUBE_GPU_PRODUCT_MAP: PRODUCT_MAP,
        KUBE_NODE_RETRY_MS: '100',
        // A node watch command nobody applies is given up on (and the nodes listed again) after 4 s.
        COMMAND_TIMEOUT_MS: '4000',
      },
    },
  });
  await keysCli(db.url, ['user', 'create', 'fleet-watch']);
  operator = JSON.parse(
    await keysCli(db.url, ['key', 'create', 'fleet-watch', '--scope', 'operator', '--json']),
  ) as TestKey;
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  sql.on('error', () => undefined);
}, 240_000);

afterAll(async () => {
  await system?.stop();
  await sql?.end();
  if (system) await deleteStreams(system.natsPrefix).catch(() => undefined);
  await db?.drop();
  await api?.stop();
  await closeBus();
});

describe('the scheduler restarted while the node watch is behind', () => {
  it('converges to the nodes after a 410 Gone, with each change applied once', async () => {
    const discovered = await converge(Date.now());
    expect(discovered.left).toEqual([]);
    const before = states(await hosts());
    const seq = await lastOutboxSeq(sql);
    const since = new Date();
    const changes = fleet.changes;

    api.nodes.held = true;
    await system.kill('cluster-scheduler');
    fleet.change(node(1), { unschedulable: true });
    fleet.change(node(2), { unschedulable: true });
    fleet.change(node(3), { ready: 'False' });
    fleet.change(node(4), { ready: 'Unknown' });
    fleet.delete(node(5));
    fleet.delete(node(6));
    fleet.put(FleetNodes.spec(13));
    fleet.put(FleetNodes.spec(14));
    fleet.change(node(7), {
      conditions: [{ type: XID_CONDITION, status: 'True', message: 'Xid 79: GPU has fallen off the bus' }],
    });
    fleet.change(node(8), { allocatable: fleet.spec(node(8)).gpus! - 1 });
    fleet.change(node(10), { zone: 'EU-RO-1' });
    api.nodes.compact();
    api.nodes.held = false;
    api.nodes.endWatches();
    const expired = await until(() => Promise.resolve(api.nodes.expired > 0), 15_000);
    await killWatchLeader();
    const restartedAt = await restartSchedulers();
    const outcome = await judge(restartedAt, before, seq, since, {});

    const pass = expired !== null && outcome.convergedMs !== null && outcome.faults.length === 0;
    recordVerdict({
      name: 'kill -9 cluster-scheduler 2/2 while the node watch is behind (410)',
      pass,
      counts: {
        nodes: NODES + 2,
        changesWhileDown: fleet.changes - changes,
        gone410: api.nodes.expired,
        ...outcome.counts,
      },
      detail: outcome.faults,
    });
    expect(expired).not.toBeNull();
    expect(outcome.faults).toEqual([]);
    expect(outcome.convergedMs).not.toBeNull();
  });

  it("converges when the node watch's commands were left unapplied, with each change applied once", async () => {
    const before = states(await hosts());
    const seq = await lastOutboxSeq(sql);
    const since = new Date();
    const changes = fleet.changes;

    await system.kill('cluster-scheduler');
    // Fleet commands recorded while no scheduler runs, ahead of the watch's: the restarted scheduler answers queries
    // while it still applies them (no-ops: uncordons of a host that is not cordoned).
    for (let i = 0; i < BACKLOG; i++) {
      await publishCommand(system.natsPrefix, commandEnvelope(Subjects.fleet.uncordon, { hostId: node(4) }));
    }
    // The watch is live: it issues a cordon no scheduler applies (recorded, given up on after 4 s), and leaves its
    // stream to list again.
    const cordoned = fleet.change(node(11), { unschedulable: true });
    const stale = deriveId(
      `kube-node/${cordoned.metadata?.uid}/${cordoned.metadata?.resourceVersion}`,
      'cordon',
    );
    expect(await until(() => Promise.resolve(api.nodes.openWatches === 0), 20_000)).not.toBeNull();
    fleet.change(node(11), { unschedulable: false });
    fleet.change(node(1), { unschedulable: false });
    fleet.change(node(3), { ready: 'True' });
    fleet.change(node(9), { ready: 'Unknown' });
    fleet.change(node(12), { unschedulable: true });
    fleet.delete(node(13));
    fleet.put(FleetNodes.spec(5));
    await killWatchLeader();
    const restartedAt = await restartSchedulers();
    const staleApplied = async () =>
      (await sql.query('SELECT 1 FROM cluster_scheduler.processed_commands WHERE command_id = $1', [stale]))
        .rowCount === 1;
    // The watch lists once the stale cordon is applied, and lifts it (node 11's two transitions); a list before it
    // would leave the host CORDONED for good.
    const outcome = await judge(restartedAt, before, seq, since, { [node(11)]: 2 }, staleApplied);
    const applied = await staleApplied();

    const pass = applied && outcome.convergedMs !== null && outcome.faults.length === 0;
    recordVerdict({
      name: "kill -9 cluster-scheduler 2/2 with the node watch's commands unapplied",
      pass,
      counts: {
        nodes: NODES + 2,
        changesWhileDown: fleet.changes - changes,
        backlog: BACKLOG,
        staleApplied: applied ? 1 : 0,
        ...outcome.counts,
      },
      detail: outcome.faults,
    });
    expect(applied).toBe(true);
    expect(outcome.faults).toEqual([]);
    expect(outcome.convergedMs).not.toBeNull();
  });
});
