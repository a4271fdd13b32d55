import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import {
  PodStatus,
  Subjects,
  type ClusterCreatedEvent,
  type ClusterDeletedEvent,
  type CommandOutcome,
  type PodView,
} from '@app/contracts';
import { request } from '../support/bus.js';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { startPodsSystem, stopPodsSystem } from './pods-system.e2e-helpers.js';
import { testEnv } from '../support/test-env.js';
import {
  PlacementStandIn,
  expectProblem,
  getPod,
  sleep,
  statusEvents,
  until,
  waitForPod,
  type Call,
} from './pods.e2e-helpers.js';

const { Provisioning, Starting, Running, Exited, Terminated } = PodStatus;

/**
 * Cluster member pods, driven by cluster-scheduler's events (published here onto the events stream as the
 * scheduler's outbox does): pod-lifecycle creates the members, runs them, answers the same /v1 routes for them,
 * emits a status event on every change (what the cluster summary follows), and terminates them when the
 * cluster is deleted.
 */
describe('cluster member pods', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let placement: PlacementStandIn;
  let alice: Call;
  let bob: Call;
  let aliceId: string;
  const clusterId = `cl${randomUUID().slice(0, 8)}`;
  const podIds = [0, 1, 2].map((rank) => `${clusterId}-pod-${rank}`);

  async function publishEvent(subject: string, payload: unknown): Promise<void> {
    const nc = await connect({ servers: testEnv().natsUrl.split(','), timeout: 5000 });
    try {
      const eventId = randomUUID();
      const envelope = {
        eventId,
        subject,
        occurredAt: new Date().toISOString(),
        correlationId: `test-${eventId}`,
        payload,
      };
      await jetstream(nc).publish(`${system.natsPrefix}.${subject}`, JSON.stringify(envelope), {
        msgID: eventId,
      });
    } finally {
      await nc.close();
    }
  }

  beforeAll(async () => {
    ({ db, system, placement, alice, aliceId, bob } = await startPodsSystem('pods_cluster'));
  });

  afterAll(() => stopPodsSystem({ db, system, placement }));

  /** The scheduler's `cluster.evt.created` for a cluster placed on host-0.., with members of these ids. */
  function clusterCreated(clusterId: string, podIds: string[]): ClusterCreatedEvent {
    return {
      clusterId,
      ownerId: aliceId,
      members: podIds.map((podId, rank) => ({
        podId,
        rank,
        role: rank === 0 ? 'primary' : 'node',
        name: `train-${rank}`,
        placement: {
          podId,
          hostId: `host-${rank}`,
          dataCenterId: 'EU-RO-1',
          publicIp: `198.51.100.${rank + 1}`,
          gpuTypeId: 'NVIDIA H100 80GB HBM3',
          gpuCount: 8,
          portMappings: { '22/tcp': 30000 + rank },
        },
        image: 'runpod/pytorch:2.4.0',
        env: { MASTER_ADDR: '10.128.0.1', NODE_RANK: String(rank), WORLD_SIZE: '3' },
        ports: ['22/tcp'],
        disk: 50,
        startJupyter: false,
        overlayIp: `10.128.0.${rank + 1}`,
      })),
    };
  }

  it('creates the members of a placed cluster (cluster.evt.created) and runs them', async () => {
    const created = clusterCreated(clusterId, podIds);
    await publishEvent(Subjects.cluster.created, created);
    const primary = await until('the members', async () => {
      const reply = await alice<PodView>('GET', `/v1/pods/${podIds[0]}`);
      return reply.status === 200 ? reply.body : null;
    });
    expect(primary).toMatchObject({
      name: 'train-0',
      clusterId,
      clusterRank: 0,
      clusterRole: 'primary',
      clusterIp: '10.128.0.1',
      machineId: 'host-0',
      dataCenterId: 'EU-RO-1',
      gpuTypeId: 'NVIDIA H100 80GB HBM3',
      gpuCount: 8,
      publicIp: '198.51.100.1',
      portMappings: { '22': 30000 },
      env: { MASTER_ADDR: '10.128.0.1', NODE_RANK: '0', WORLD_SIZE: '3' },
      containerDiskInGb: 50,
    });
    for (const podId of podIds) await waitForPod(alice, podId, Running);
    expect(await statusEvents(system.natsPrefix, podIds[1])).toEqual([
      { status: Provisioning, previousStatus: null },
      { status: Starting, previousStatus: Provisioning },
      { status: Running, previousStatus: Starting },
    ]);
  });

  it('answers pod.qry.list-by-cluster with the same pod views, in rank order; 403 for another user', async () => {
    const reply = await request<CommandOutcome>(
      system.natsPrefix,
      Subjects.pod.listByCluster,
      { clusterId },
      {
        userId: aliceId,
        kind: 'user',
      },
    );
    expect(reply.ok).toBe(true);
    const pods = (reply as { ok: true; value: PodView[] }).value;
    expect(pods.map((p) => p.id)).toEqual(podIds);
    expect(pods[0]).toEqual(await getPod(alice, podIds[0]));
    const system_ = await request<CommandOutcome>(
      system.natsPrefix,
      Subjects.pod.listByCluster,
      { clusterId },
      {
        userId: 'system:cluster-scheduler',
        kind: 'system',
      },
    );
    expect(system_.ok).toBe(true);
    const other = await request<CommandOutcome>(
      system.natsPrefix,
      Subjects.pod.listByCluster,
      { clusterId },
      {
        userId: 'someone-else',
        kind: 'user',
      },
    );
    expect(other).toEqual({
      ok: false,
      error: { code: 'FORBIDDEN', message: `cluster ${clusterId} belongs to another user` },
    });
  });

  it('reset of a member: 200, STARTING then RUNNING, each a status event', async () => {
    const reply = await alice<PodView>('POST', `/v1/pods/${podIds[1]}/reset`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: podIds[1], status: Starting, clusterId });
    await waitForPod(alice, podIds[1], Running);
    await until(
      'the reset events',
      async () => (await statusEvents(system.natsPrefix, podIds[1])).length === 5,
    );
    expect((await statusEvents(system.natsPrefix, podIds[1])).slice(3)).toEqual([
      { status: Starting, previousStatus: Running },
      { status: Running, previousStatus: Starting },
    ]);
  });

  it('stop and start of the primary: EXITED, then resumed on its own host (pinned reserve), events each time', async () => {
    const stopped = await alice<PodView>('POST', `/v1/pods/${podIds[0]}/stop`);
    expect(stopped.body.status).toBe(Exited);
    const started = await alice<PodView>('POST', `/v1/pods/${podIds[0]}/start`);
    expect(started.body).toMatchObject({ status: Starting, machineId: 'host-0' });
    expect(placement.reserves.filter((r) => r.podId === podIds[0]).at(-1)).toMatchObject({
      hostId: 'host-0',
      gpuTypeId: 'NVIDIA H100 80GB HBM3',
      gpuCount: 8,
      ownerId: aliceId,
      ports: ['22/tcp'],
    });
    await waitForPod(alice, podIds[0], Running);
    await until('the events', async () => (await statusEvents(system.natsPrefix, podIds[0])).length === 6);
    expect((await statusEvents(system.natsPrefix, podIds[0])).slice(3)).toEqual([
      { status: Exited, previousStatus: Running },
      { status: Starting, previousStatus: Exited },
      { status: Running, previousStatus: Starting },
    ]);
  });

  it('a member terminates only with its cluster: /v1 and /v2 answer the same 409, and both say so in the pod', async () => {
    const detail = new RegExp(`member of cluster ${clusterId}; delete the cluster instead`);
    const v1Refusal = await alice<{ message?: string }>('DELETE', `/v1/pods/${podIds[2]}`);
    expectProblem(v1Refusal, 409, detail);
    // In v1's form too: the `message` runpodctl prints.
    expect(v1Refusal.body.message).toMatch(detail);
    expectProblem(await alice('DELETE', `/v2/pods/${podIds[2]}`), 409, detail);
    const v1 = await getPod(alice, podIds[2]);
    expect(v1).toMatchObject({ status: Running, allowedActions: ['stop', 'reset'] });
    const v2 = await alice<{ status: string; actions: string[] }>('GET', `/v2/pods/${podIds[2]}`);
    expect(v2.body).toMatchObject({ status: Running, actions: ['stop', 'restart'] });
  });

  it('members answer 403 to another user like any pod', async () => {
    expectProblem(await bob('POST', `/v1/pods/${podIds[2]}/reset`), 403);
  });

  it('terminates the members when the cluster is deleted (cluster.evt.deleted)', async () => {
    const deleted: ClusterDeletedEvent = { clusterId, ownerId: aliceId, podIds };
    await publishEvent(Subjects.cluster.deleted, deleted);
    for (const podId of podIds) {
      expect(await waitForPod(alice, podId, Terminated)).toMatchObject({
        desiredStatus: Terminated,
        statusReason: `cluster ${clusterId} was deleted`,
      });
    }
    expect((await alice<PodView[]>('GET', '/v1/pods')).body.map((p) => p.id)).toEqual([]);
    expect((await alice<PodView[]>('GET', '/v1/pods?includeTerminated=true')).body.map((p) => p.id)).toEqual(
      podIds,
    );
  });

  it('a delete heard before the create (a create delivered again after a replica died): members end TERMINATED', async () => {
    const lateId = `cl${randomUUID().slice(0, 8)}`;
    const lateIds = [0, 1].map((rank) => `${lateId}-pod-${rank}`);
    await publishEvent(Subjects.cluster.deleted, { clusterId: lateId, ownerId: aliceId, podIds: lateIds });
    // The delete is applied (nothing to terminate yet) before the create arrives.
    await sleep(1000);
    await publishEvent(Subjects.cluster.created, clusterCreated(lateId, lateIds));
    for (const podId of lateIds) {
      const pod = await until(`member ${podId}`, async () => {
        const reply = await alice<PodView>('GET', `/v1/pods/${podId}`);
        return reply.status === 200 && reply.body.status === Terminated ? reply.body : null;
      });
      expect(pod).toMatchObject({ desiredStatus: Terminated, statusReason: `cluster ${lateId} was deleted` });
    }
    // Created, then terminated at once: the runtime never ran them.
    for (const podId of lateIds) {
      expect((await statusEvents(system.natsPrefix, podId)).map((e) => e.status)).toEqual([
        Provisioning,
        Terminated,
      ]);
    }
  });
});
