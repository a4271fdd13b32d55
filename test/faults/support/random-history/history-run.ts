import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { testEnv } from '../../../support/test-env.js';
import { sleep } from '../fault-calls.js';
import type { HistorySystem } from './history-system.js';
import { HistoryWorkers } from './history-workers.js';
import { HistoryWorld } from './history-world.js';
import { editEndpoint, endpointActions, jobActions } from './job-actions.js';
import { fleetActions } from './fleet-actions.js';
import {
  accountActions,
  computeActions,
  createTemplate,
  quotaActions,
  recordActions,
  type Action,
  type ActionContext,
} from './resource-actions.js';
import { Rng } from './rng.js';

const ACTIONS: Record<string, Action> = {
  ...accountActions,
  ...recordActions,
  ...computeActions,
  ...quotaActions,
  ...fleetActions,
  ...endpointActions,
  ...jobActions,
};

/** How often each family is drawn. */
const WEIGHTS = {
  job: 40,
  jobFollowUp: 8,
  worker: 4,
  endpoint: 3,
  pod: 12,
  cluster: 3,
  template: 5,
  registry: 2,
  volume: 3,
  sshKeys: 2,
  user: 1,
  key: 1,
  team: 2,
  quota: 2,
  fleet: 2,
} satisfies Record<keyof typeof ACTIONS, number>;

/** Clients issuing actions side by side, each with a generator of its own forked from the seed's. */
const CLIENTS = 8;
/** The apps a history kills (SIGKILL) and restarts, at these fractions of its commands, in an order it draws. */
const RESTARTED = ['queue-broker', 'pod-lifecycle', 'endpoint-autoscaler'] as const;
const RESTART_AT = [0.25, 0.5, 0.75];

export interface HistoryResult {
  actions: Record<string, number>;
  statuses: Record<string, number>;
  restarts: string[];
  workerKills: number;
  recorded: number;
  errors: string[];
}

/** Messages in the system's commands stream: every recorded command. */
async function recordedCommands(nc: NatsConnection, prefix: string): Promise<number> {
  const jsm = await jetstreamManager(nc);
  return (await jsm.streams.info(`${prefix}_COMMANDS`)).state.messages;
}

/**
 * Drives the running system with the seed's random mix of every command family until its commands stream holds
 * `target` commands, killing and restarting apps on the way; then stops the workers and waits until the system
 * is quiet (no command recorded for 3 s, or 45 s passed).
 */
export async function runHistory(hs: HistorySystem, seed: number, target: number): Promise<HistoryResult> {
  const root = Rng.seeded(seed);
  const world = new HistoryWorld();
  const workers = new HistoryWorkers(hs);
  const actions: Record<string, number> = {};
  const errors: string[] = [];
  const restarts: string[] = [];
  let names = 0;
  const context = (rng: Rng): ActionContext => ({
    hs,
    world,
    rng,
    workers,
    name: (kind) => `${kind}-${++names}`,
  });
  const nc = await connect({ servers: testEnv().natsUrl.split(',') });
  try {
    // A start every history shares: a serverless template and an endpoint with its workers.
    await createTemplate(context(root.fork()), true);
    await ACTIONS.endpoint(context(root.fork()));
    const order = [...RESTARTED];
    for (let i = order.length - 1; i > 0; i--) {
      const j = root.int(0, i);
      [order[i], order[j]] = [order[j], order[i]];
    }
    let recorded = 0;
    let done = false;
    const clients = Array.from({ length: CLIENTS }, async (_, n) => {
      const ctx = context(root.fork());
      while (!done) {
        const family = ctx.rng.weighted(WEIGHTS);
        actions[family] = (actions[family] ?? 0) + 1;
        try {
          await ACTIONS[family](ctx);
        } catch (error) {
          errors.push(`client ${n} ${family}: ${(error as Error).message}`);
        }
      }
    });
    const chaos = (async () => {
      for (const [i, app] of order.entries()) {
        while (!done && recorded < target * RESTART_AT[i]) await sleep(200);
        if (done) return;
        restarts.push(app);
        await hs.system.kill(app, 'SIGKILL');
        await sleep(root.int(200, 1500));
        // An endpoint save needs pod-lifecycle's answer about its template: while it is down the save is refused
        // for good (DEPENDENCY_UNAVAILABLE), a recorded outcome a rebuild must reproduce rather than apply.
        if (app === 'pod-lifecycle') await editEndpoint(context(root.fork()));
        await hs.system.restart(app);
      }
    })();
    while (recorded < target) {
      await sleep(500);
      recorded = await recordedCommands(nc, hs.system.natsPrefix);
    }
    done = true;
    await Promise.all([...clients, chaos]);
    await workers.stop(undefined, 3000);
    // Quiet: nothing recorded for 3 s (lost workers swept, pods settled, the control loop idle).
    let last = -1;
    for (let waited = 0; waited < 45_000; waited += 3000) {
      recorded = await recordedCommands(nc, hs.system.natsPrefix);
      if (recorded === last) break;
      last = recorded;
      await sleep(3000);
    }
    return { actions, statuses: world.statuses, restarts, workerKills: workers.kills, recorded, errors };
  } finally {
    await workers.stop(undefined, 1000);
    await nc.close();
  }
}
