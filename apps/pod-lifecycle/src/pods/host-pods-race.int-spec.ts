import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import {
  PodStatus,
  Subjects,
  deriveId,
  type ClusterCreatedEvent,
  type ReservePodCommand,
} from '@app/contracts';
import { ALICE, type HandlerHarness } from '../../../../test/support/handler-harness.js';
import {
  PodLifecycleHandlers,
  SYSTEM,
  clusterMember,
  reserve,
} from '../../../../test/support/pod-lifecycle-handlers.js';

/**
 * A host command (host-lost, host-drained, host-notice, host-failed) applied by one pod-lifecycle replica while the
 * other commits a create of pods on that host (or a start of one), over pod-lifecycle's real schema. The other
 * command has written its rows and its processed row, dated first, but has not committed: its processed row waits
 * on a row of the same id that a third transaction holds (and rolls back). The host command must then answer as a
 * rebuild, which applies the two in processed_at order, does: with those pods. Without the host's lock
 * (PodRepository.lockHosts) it read the host's pods before the create committed and left them out (random history
 * seed 1411 on two replicas); host-failed's status filter also skipped a pod being started.
 */

let app: PodLifecycleHandlers;
let pods: HandlerHarness;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('host_pods_race');
  pods = app.harness;
});

afterAll(async () => {
  await app?.stop();
});

type Settled<T> = { value: T } | { error: unknown };
const settle = <T>(work: Promise<T>): Promise<Settled<T>> =>
  work.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
const valueOf = <T>(settled: Settled<T>): T => {
  if ('error' in settled) throw settled.error;
  return settled.value;
};

/** How many backends of the test's database wait for a lock, read from the holding transaction. */
async function waiting(holder: QueryRunner): Promise<number> {
  // pg_stat_activity is read once per transaction unless its snapshot is cleared.
  await holder.query('SELECT pg_stat_clear_snapshot()');
  const [{ n }] = (await holder.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0`,
  )) as { n: number }[];
  return n;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** What `work` answers, the holder's transaction rolled back and its connection released after it, whatever it did. */
async function thenRollBack<T>(holder: QueryRunner, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    await holder.rollbackTransaction();
    await holder.release();
  }
}

/**
 * Starts `other` (command id `otherId`) and holds it before its commit, its processed row dated; runs `hostCommand`
 * until it finishes or waits for a lock; lets `other` commit; answers the host command's outcome and the order of
 * the two processed rows.
 */
async function raced<T>(
  otherId: string,
  other: () => Promise<unknown>,
  hostCommand: (commandId: string) => Promise<T>,
): Promise<{ answer: T; order: string[] }> {
  const hostCommandId = randomUUID();
  const holder = pods.dataSource.createQueryRunner();
  await holder.connect();
  await holder.startTransaction();
  const { created, hosted } = await thenRollBack(holder, async () => {
    await holder.query(
      `INSERT INTO pod_lifecycle.processed_commands
         (command_id, subject, outcome, issued_at, correlation_id, actor_user_id)
       VALUES ($1, 'test.hold', '{}'::jsonb, now(), 'hold', 'hold')`,
      [otherId],
    );
    let otherDone = false;
    const created = settle(other()).finally(() => (otherDone = true));
    await until(
      async () => otherDone || (await waiting(holder)) >= 1,
      'the other command at its processed row',
    );
    expect(otherDone).toBe(false);
    let hostDone = false;
    const hosted = settle(hostCommand(hostCommandId)).finally(() => (hostDone = true));
    await until(async () => hostDone || (await waiting(holder)) >= 2, 'the host command');
    return { created, hosted };
  });
  valueOf(await created);
  const answer = valueOf(await hosted);
  const rows = await pods.dataSource.query<{ command_id: string }[]>(
    `SELECT command_id FROM pod_lifecycle.processed_commands WHERE command_id = ANY($1) ORDER BY processed_at`,
    [[otherId, hostCommandId]],
  );
  const order = rows.map((row) => (row.command_id === otherId ? 'other replica' : 'host command'));
  return { answer, order };
}

/** The members of cluster `clusterId` (ranks 0 and 1) on host `hostId`, created through their recorded command. */
function members(clusterId: string, hostId: string) {
  const cluster: ClusterCreatedEvent = {
    clusterId,
    ownerId: ALICE.userId,
    members: [0, 1].map((rank) => {
      const member = clusterMember(clusterId, rank);
      return { ...member, placement: { ...member.placement, hostId } };
    }),
  };
  const podIds = cluster.members.map((member) => member.podId).sort();
  const listed = podIds.map((podId) => ({ podId, ownerId: ALICE.userId, clusterId }));
  const create = (commandId: string) => () =>
    pods.send(Subjects.pod.createClusterMembers, { cluster }, { actor: SYSTEM, commandId });
  return { podIds, listed, create };
}

const statuses = async (podIds: string[]) =>
  (
    await pods.dataSource.query<{ status: string }[]>(
      'SELECT status FROM pod_lifecycle.pods WHERE id = ANY($1) ORDER BY id',
      [podIds],
    )
  ).map((row) => row.status);

type Listed = { podId: string; ownerId: string; clusterId: string | null }[];
const send = (subject: Parameters<HandlerHarness['send']>[0], payload: object) => (commandId: string) =>
  pods.send(subject, payload, { actor: SYSTEM, commandId });

/** Each host command, what it answers with the pods created on its host, and the status it leaves them in. */
const HOST_COMMANDS: {
  name: string;
  command: (hostId: string, listed: Listed) => (commandId: string) => Promise<unknown>;
  answer: (podIds: string[]) => unknown;
  status: PodStatus;
}[] = [
  {
    name: 'host-lost',
    command: (hostId, listed) =>
      send(Subjects.pod.hostLost, { hostId, state: 'UNHEALTHY', healthCode: 'XID', pods: listed }),
    answer: (podIds) => ({ podIds }),
    status: PodStatus.Error,
  },
  {
    name: 'host-drained',
    command: (hostId, listed) => send(Subjects.pod.hostDrained, { hostId, pods: listed }),
    answer: (podIds) => ({ podIds }),
    status: PodStatus.Exited,
  },
  {
    name: 'host-notice',
    command: (hostId, listed) =>
      send(Subjects.pod.hostNotice, {
        hostId,
        state: 'DRAINING',
        drainDeadline: '2026-03-01T13:00:00.000Z',
        pods: listed,
      }),
    answer: (podIds) => ({ noticed: podIds, cleared: [] }),
    status: PodStatus.Provisioning,
  },
  {
    name: 'host-failed',
    command: (hostId) => send(Subjects.pod.hostFailed, { hostId }),
    answer: (podIds) => ({ podIds }),
    status: PodStatus.Error,
  },
];

describe('a host command while another replica commits pods created on the host', () => {
  it.each(HOST_COMMANDS)(
    "$name waits for a cluster's members being created there, and acts on them",
    async ({ name, command, answer, status }) => {
      const createId = randomUUID();
      const hostId = `h-race-${name}`;
      const { podIds, listed, create } = members(`cluster-race-${name}`, hostId);
      const race = await raced(createId, create(createId), command(hostId, listed));
      expect(race.order).toEqual(['other replica', 'host command']);
      expect(race.answer).toEqual(answer(podIds));
      expect(await statuses(podIds)).toEqual([status, status]);
    },
  );

  it('host-lost waits for a standalone pod being created there', async () => {
    const createId = randomUUID();
    const podId = deriveId(createId, 'pod');
    const hostId = 'h-race-pod';
    app.scheduler.answer(Subjects.placement.reserve, (command: ReservePodCommand) => ({
      ...reserve(command),
      hostId,
    }));
    try {
      const listed = [{ podId, ownerId: ALICE.userId, clusterId: null }];
      const create = () => app.createPod('p-raced', {}, { commandId: createId });
      const race = await raced(createId, create, HOST_COMMANDS[0].command(hostId, listed));
      expect(race.order).toEqual(['other replica', 'host command']);
      expect(race.answer).toEqual({ podIds: [podId] });
    } finally {
      app.scheduler.answer(Subjects.placement.reserve, reserve);
    }
  });

  it('host-failed waits for a start of a stopped pod there, and takes it to ERROR', async () => {
    const hostId = 'h-race-start';
    app.scheduler.answer(Subjects.placement.reserve, (command: ReservePodCommand) => ({
      ...reserve(command),
      hostId,
    }));
    try {
      const pod = await app.createPod('p-started');
      await pods.send(Subjects.pod.stop, { podId: pod.id });
      const startId = randomUUID();
      const start = () => pods.send(Subjects.pod.start, { podId: pod.id }, { commandId: startId });
      const race = await raced(startId, start, HOST_COMMANDS[3].command(hostId, []));
      expect(race.order).toEqual(['other replica', 'host command']);
      expect(race.answer).toEqual({ podIds: [pod.id] });
      expect(await statuses([pod.id])).toEqual([PodStatus.Error]);
    } finally {
      app.scheduler.answer(Subjects.placement.reserve, reserve);
    }
  });
});
