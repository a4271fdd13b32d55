import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import type { BaseConfig } from '@app/config';
import {
  Streams,
  Subjects,
  deriveId,
  type CommandEnvelope,
  type HostChangedEvent,
  type HostState,
  type PreemptedEvent,
  type SweepJobsCommand,
} from '@app/contracts';
import { CommandBus, NatsClient, QueryBus, ensureStreams, type EventEnvelope } from '@app/messaging';
import type { HandlerHarness, SendOptions } from '../../../../../test/support/handler-harness.js';
import { startQueueBrokerCommands } from '../../../../../test/support/queue-broker-commands.js';
import type { WorkerCommands } from '../../../../../test/support/queue-broker-workers.js';
import { deleteStreams } from '../../../../../test/support/system.js';
import { testEnv } from '../../../../../test/support/test-env.js';
import { HandBackLeasesHandler } from './hand-back-leases.handler.js';

/**
 * A serverless worker whose pod the scheduler preempted, over queue-broker's real schema and a real JetStream: the
 * sweep the broker records when it hears `placement.evt.preempted` hands the worker's jobs back to the queue at
 * once; a result the worker posts late is ignored, so each job completes once, on the worker that took it next.
 */

const prefix = `hb${randomBytes(4).toString('hex')}`;
let commands: WorkerCommands;
let harness: HandlerHarness;
let nats: NatsClient;
let handler: HandBackLeasesHandler;

beforeAll(async () => {
  commands = await startQueueBrokerCommands('hand_back');
  harness = commands.harness;
  nats = await NatsClient.connect(testEnv().natsUrl, prefix, 'hand-back-int-spec');
  await ensureStreams(nats);
  const config = { REPLAY_MODE: false, BUS_REQUEST_TIMEOUT_MS: 5000 } as BaseConfig;
  handler = new HandBackLeasesHandler(new CommandBus(nats, new QueryBus(nats, config), config));
});

afterAll(async () => {
  await commands?.stop();
  await nats?.drain();
  await deleteStreams(prefix);
});

const at = (second: number): SendOptions => ({
  issuedAt: new Date(Date.UTC(2026, 2, 1, 9, 0, second)).toISOString(),
});

function preempted(podIds: string[], second: number): EventEnvelope<PreemptedEvent> {
  return {
    eventId: randomUUID(),
    subject: Subjects.placement.preempted,
    occurredAt: at(second).issuedAt!,
    correlationId: `test-${randomUUID()}`,
    payload: {
      preemptor: { accountId: 'team-urgent', workloadId: 'pod-urgent', priority: 'high' },
      workloads: [{ ownerId: 'user-alice', podIds, clusterId: null, reason: 'interruptible' }],
    },
  };
}

/** What the broker's consumer delivers the handler: the event (it writes and emits nothing itself). */
const context = <T>(event: EventEnvelope<T>) => ({
  event,
  manager: harness.dataSource.manager,
  emit: () => Promise.reject(new Error('the reaction emits nothing')),
});
const hear = (event: EventEnvelope<PreemptedEvent>) => handler.heard(context(event));

/** The scheduler's `fleet.evt.host-changed` for host h-1 (its pods named), as the broker's consumer delivers it. */
function hostChanged(
  state: HostState,
  pods: { podId: string; clusterId?: string }[],
  second: number,
): EventEnvelope<HostChangedEvent> {
  return {
    eventId: randomUUID(),
    subject: Subjects.fleet.hostChanged,
    occurredAt: at(second).issuedAt!,
    correlationId: `test-${randomUUID()}`,
    payload: {
      hostId: 'h-1',
      dataCenterId: 'EU-RO-1',
      state,
      previousState: 'READY',
      reason: 'Xid 79 on GPU 3',
      healthCode: 'XID',
      pods: pods.map((pod) => ({ ownerId: 'user-alice', clusterId: null, ...pod })),
    },
  };
}

/** The commands the stream holds, oldest first. */
async function recorded(): Promise<CommandEnvelope<SweepJobsCommand>[]> {
  const stream = nats.streamName(Streams.Commands);
  const { state } = await nats.jsm.streams.info(stream);
  const out: CommandEnvelope<SweepJobsCommand>[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages; seq++) {
    const message = await nats.jsm.streams.getMessage(stream, { seq });
    if (message) out.push(message.json<CommandEnvelope<SweepJobsCommand>>());
  }
  return out;
}

/** Applies a recorded command as the broker's consumer does: its id, time and actor. */
const apply = (command: CommandEnvelope<SweepJobsCommand>) =>
  harness.send(Subjects.job.sweep, command.payload, {
    commandId: command.commandId,
    issuedAt: command.issuedAt,
    actor: command.actor,
  });

const jobs = (ids: string[]) =>
  harness.dataSource.query<{ id: string; status: string; lease_worker_id: string | null }[]>(
    'SELECT id, status, lease_worker_id FROM queue_broker.jobs WHERE id = ANY($1) ORDER BY id',
    [ids],
  );

describe("a preempted worker's jobs", () => {
  it('come back to the queue at once; a late result is ignored and each job completes once, elsewhere', async () => {
    const gone = await commands.leased('preempted', 2, at, 0);
    const other = await commands.leased('untouched', 1, at, 0);
    const event = preempted([gone.worker.workerId, 'pod-not-a-worker'], 10);
    await hear(event);
    await hear(event); // delivered again: the same command, kept once
    const [sweep, ...more] = await recorded();
    expect(more).toEqual([]);
    expect(sweep).toMatchObject({
      commandId: deriveId(event.eventId, 'hand-back-leases'),
      issuedAt: event.occurredAt,
      subject: Subjects.job.sweep,
      payload: { detectLostWorkers: false, preemptedWorkerIds: ['pod-not-a-worker', 'worker-preempted'] },
    });

    expect(await apply(sweep)).toMatchObject({ preemptedWorkers: 1, requeued: 2, failed: 0 });
    expect(await jobs(gone.ids)).toEqual(
      gone.ids.map((id) => ({ id, status: 'IN_QUEUE', lease_worker_id: null })),
    );
    expect(await jobs(other.ids)).toEqual([
      { id: other.ids[0], status: 'IN_PROGRESS', lease_worker_id: other.worker.workerId },
    ]);
    const audit = (await harness.events(Subjects.audit.recorded)).map((e) => e.payload);
    expect(audit).toContainEqual(
      expect.objectContaining({
        action: 'worker.lost',
        resourceId: gone.worker.workerId,
        actor: expect.objectContaining({ reason: expect.stringContaining("the worker's pod was preempted") }),
      }),
    );

    // The preempted worker's container posts before the runtime stops it: the job is no longer its own.
    const [first] = gone.ids;
    const late = () =>
      harness.send(
        Subjects.worker.done,
        { ...gone.worker, jobId: first, output: 'late', hasOutput: true, progress: false, stopPod: false },
        at(20),
      );
    expect(await late()).toEqual({ recorded: 'ignored', reason: 'the job is IN_QUEUE' });

    // A new worker takes the jobs and finishes one; the old one's result, posted again, changes nothing.
    const fresh = { endpointId: gone.worker.endpointId, workerId: 'worker-replacement' };
    const taken = await harness.send(Subjects.worker.take, { ...fresh, batchSize: 5 }, at(30));
    expect((taken as { jobs: { id: string }[] }).jobs.map((j) => j.id).sort()).toEqual([...gone.ids].sort());
    const done = { ...fresh, jobId: first, output: 'ok', hasOutput: true, progress: false, stopPod: false };
    expect(await harness.send(Subjects.worker.done, done, at(31))).toEqual({ recorded: 'completed' });
    expect(await late()).toEqual({ recorded: 'ignored', reason: 'the job is COMPLETED' });
    const completed = (await harness.events(Subjects.job.changed))
      .map((e) => e.payload as { jobId: string; status: string })
      .filter((change) => change.jobId === first && change.status === 'COMPLETED');
    expect(completed).toHaveLength(1);
  });

  it('are handed back once: the same preemption swept again finds nothing more', async () => {
    const gone = await commands.leased('twice', 1, at, 40);
    const command = {
      commandId: randomUUID(),
      issuedAt: at(45).issuedAt!,
      actor: { userId: 'team-urgent', kind: 'system' as const },
      payload: { detectLostWorkers: false, preemptedWorkerIds: [gone.worker.workerId] },
    } as CommandEnvelope<SweepJobsCommand>;
    expect(await apply(command)).toMatchObject({ preemptedWorkers: 1, requeued: 1 });
    expect(await apply({ ...command, commandId: randomUUID() })).toMatchObject({
      preemptedWorkers: 0,
      requeued: 0,
    });
    expect(await jobs(gone.ids)).toEqual([{ id: gone.ids[0], status: 'IN_QUEUE', lease_worker_id: null }]);
  });
});

describe('the jobs of workers on a host found unhealthy or gone', () => {
  it('come back to the queue at once (an attempt spent, as for a lost worker); other states leave them', async () => {
    const sick = await commands.leased('on-sick-host', 2, at, 50);
    const other = await commands.leased('elsewhere', 1, at, 50);
    const before = (await recorded()).length;
    // Draining, cordoned: the workers keep their jobs (the autoscaler replaces them first).
    await handler.hostChanged(context(hostChanged('DRAINING', [{ podId: sick.worker.workerId }], 51)));
    await handler.hostChanged(context(hostChanged('CORDONED', [{ podId: sick.worker.workerId }], 52)));
    expect(await recorded()).toHaveLength(before);

    const pods = [{ podId: sick.worker.workerId }, { podId: 'member-0', clusterId: 'cluster-1' }];
    const event = hostChanged('UNHEALTHY', pods, 55);
    await handler.hostChanged(context(event));
    await handler.hostChanged(context(event)); // delivered again: the same command, kept once
    const sweeps = (await recorded()).slice(before);
    expect(sweeps).toHaveLength(1);
    expect(sweeps[0]).toMatchObject({
      commandId: deriveId(event.eventId, 'hand-back-leases'),
      issuedAt: event.occurredAt,
      actor: { userId: 'system:fleet', kind: 'system' },
      payload: {
        detectLostWorkers: false,
        // A cluster member is never a worker.
        lostHost: {
          hostId: 'h-1',
          state: 'UNHEALTHY',
          reason: 'Xid 79 on GPU 3',
          workerIds: [sick.worker.workerId],
        },
      },
    });
    expect(await apply(sweeps[0])).toMatchObject({ hostLostWorkers: 1, requeued: 2, failed: 0 });
    expect(await jobs(sick.ids)).toEqual(
      sick.ids.map((id) => ({ id, status: 'IN_QUEUE', lease_worker_id: null })),
    );
    expect(await jobs(other.ids)).toEqual([
      { id: other.ids[0], status: 'IN_PROGRESS', lease_worker_id: other.worker.workerId },
    ]);
    const [attempt] = await harness.dataSource.query<{ attempts: number }[]>(
      'SELECT attempts FROM queue_broker.jobs WHERE id = $1',
      [sick.ids[0]],
    );
    expect(attempt.attempts).toBe(1);
    const audit = (await harness.events(Subjects.audit.recorded)).map((e) => e.payload);
    expect(audit).toContainEqual(
      expect.objectContaining({
        action: 'worker.lost',
        resourceId: sick.worker.workerId,
        actor: expect.objectContaining({
          reason: expect.stringContaining("the worker's host h-1 became UNHEALTHY (Xid 79 on GPU 3)"),
        }),
      }),
    );
    const closed = await harness.dataSource.query<{ worker_id: string; outcome: string }[]>(
      'SELECT worker_id, outcome FROM queue_broker.job_attempts WHERE job_id = $1 AND ended_at IS NOT NULL',
      [sick.ids[0]],
    );
    expect(closed).toEqual([{ worker_id: sick.worker.workerId, outcome: 'WORKER_LOST' }]);
  });
});
