import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ErrorCode,
  PodStatus,
  Subjects,
  type Actor,
  type ClusterCreatedEvent,
  type PodView,
} from '@app/contracts';
import { CatalogChecks } from '../../../cluster-scheduler/src/catalog/catalog.checks.js';
import { CatalogRepository } from '../../../cluster-scheduler/src/catalog/catalog.repository.js';
import { FleetLoader } from '../../../cluster-scheduler/src/catalog/fleet.loader.js';
import { ClusterSchedulerConfig } from '../../../cluster-scheduler/src/cluster-scheduler.config.js';
import { ClustersRepository } from '../../../cluster-scheduler/src/clusters/clusters.repository.js';
import { FollowPodStatusHandler } from '../../../cluster-scheduler/src/clusters/follow-pod-status/follow-pod-status.handler.js';
import { DATA_SOURCE_SPEC as SCHEDULER_SPEC } from '../../../cluster-scheduler/src/data-source.js';
import { PlacementApplier } from '../../../cluster-scheduler/src/placement/placement.applier.js';
import { PlacementRepository } from '../../../cluster-scheduler/src/placement/placement.repository.js';
import { ReleasePodHandler } from '../../../cluster-scheduler/src/placement/release-pod/release-pod.handler.js';
import { ReservePodHandler } from '../../../cluster-scheduler/src/placement/reserve-pod/reserve-pod.handler.js';
import { NetworkVolumesRepository } from '../../../cluster-scheduler/src/volumes/network-volumes.repository.js';
import { DATA_SOURCE_SPEC as POD_SPEC } from '../data-source.js';
import { PodLifecycleConfig } from '../pod-lifecycle.config.js';
import { CreateClusterMembersHandler } from './create-cluster-members/create-cluster-members.handler.js';
import { CreatePodHandler } from './create-pod/create-pod.handler.js';
import { DeletedClustersRepository } from './deleted-clusters/deleted-clusters.repository.js';
import { HostFailedHandler } from './host-failed/host-failed.handler.js';
import { ObservePodHandler } from './observe-pod/observe-pod.handler.js';
import { PodTransitions } from './pod-transitions.js';
import { PodRepository } from './pod.repository.js';
import { ResetPodHandler } from './reset-pod/reset-pod.handler.js';
import { SealPodEnvHandler } from './seal-pod-env/seal-pod-env.handler.js';
import { StartPodHandler } from './start-pod/start-pod.handler.js';
import { StopPodHandler } from './stop-pod/stop-pod.handler.js';
import { TerminateClusterMembersHandler } from './terminate-cluster-members/terminate-cluster-members.handler.js';
import { TerminatePodHandler } from './terminate-pod/terminate-pod.handler.js';
import { UpdatePodHandler } from './update-pod/update-pod.handler.js';
import { PodUsageRepository } from './usage/pod-usage.repository.js';
import { PodUsage } from './usage/pod-usage.service.js';
import { RegistryAuthRepository } from '../registry-auth/registry-auth.repository.js';
import { SpendLedger } from '../spend/spend-ledger.service.js';
import { SpendLimitsRepository } from '../spend/spend-limits.repository.js';
import { CatalogTemplates } from '../templates/catalog-templates.js';
import { TemplateRepository } from '../templates/template.repository.js';
import {
  ALICE,
  BOB,
  HandlerHarness,
  InProcessCommands,
  InProcessQueries,
} from '../../../../test/support/handler-harness.js';
import { whileHeld } from '../../../../test/support/while-held.js';

/**
 * pod-lifecycle's pod commands over its real schema, with the scheduler's real placement handlers (its schema, the
 * default fleet) behind the in-process bus: a pod's reservation is taken by the scheduler's reserve command and
 * given back by its handler of the pod's status events, delivered from pod-lifecycle's outbox.
 * Each command's success and its main refusal.
 */

const GPU = 'NVIDIA A100 80GB PCIe';
const SYSTEM: Actor = { userId: 'system', kind: 'system' };

let scheduler: HandlerHarness;
let pods: HandlerHarness;
let registryAuths: RegistryAuthRepository;

beforeAll(async () => {
  scheduler = await HandlerHarness.start('pods_scheduler', 'cluster-scheduler', SCHEDULER_SPEC);
  const config = new ClusterSchedulerConfig();
  const catalog = new CatalogRepository(scheduler.dataSource);
  await new FleetLoader(config, catalog).load();
  const placement = new PlacementRepository(scheduler.dataSource);
  const clusters = new ClustersRepository(scheduler.dataSource);
  const volumes = new NetworkVolumesRepository(scheduler.dataSource);
  scheduler.register(
    new ReservePodHandler(
      placement,
      new PlacementApplier(placement, volumes, clusters, config),
      new CatalogChecks(catalog),
      clusters,
      catalog,
    ),
    new ReleasePodHandler(placement),
    new FollowPodStatusHandler(clusters, placement, new InProcessCommands(scheduler).asBus()),
  );

  pods = await HandlerHarness.start('pods_lifecycle', 'pod-lifecycle', POD_SPEC);
  const { dataSource } = pods;
  const podRepository = new PodRepository(dataSource);
  const usageRepository = new PodUsageRepository(dataSource);
  const usage = new PodUsage(usageRepository);
  // No spend limit is set, so the ledger asks nobody; the scheduler's volume usage would be asked otherwise.
  const spend = new SpendLedger(
    new SpendLimitsRepository(dataSource),
    usageRepository,
    new InProcessQueries().asBus(),
  );
  const commands = new InProcessCommands(scheduler).asBus();
  registryAuths = new RegistryAuthRepository(dataSource);
  const transitions = new PodTransitions(podRepository, commands, usage, spend, registryAuths);
  const catalogTemplates = new CatalogTemplates(new PodLifecycleConfig());
  catalogTemplates.onModuleInit();
  const deletedClusters = new DeletedClustersRepository();
  pods.register(
    new CreatePodHandler(
      podRepository,
      new TemplateRepository(dataSource),
      registryAuths,
      commands,
      catalogTemplates,
      usage,
      spend,
    ),
    new StartPodHandler(transitions),
    new StopPodHandler(transitions),
    new ResetPodHandler(transitions),
    new TerminatePodHandler(transitions),
    new UpdatePodHandler(podRepository, registryAuths, transitions, usage),
    new ObservePodHandler(podRepository, transitions),
    new HostFailedHandler(podRepository, transitions),
    new SealPodEnvHandler(podRepository),
    // The member commands only; their event handlers (which record them) are not called here.
    new CreateClusterMembersHandler(podRepository, usage, transitions, deletedClusters, commands),
    new TerminateClusterMembersHandler(podRepository, transitions, deletedClusters, commands),
  );
});

afterAll(async () => {
  await pods?.stop();
  await scheduler?.stop();
});

const createPod = (name: string, extra: Record<string, unknown> = {}): Promise<PodView> =>
  pods.send(Subjects.pod.create, {
    name,
    imageName: 'alpine:3',
    gpuTypeId: GPU,
    gpuCount: 1,
    ports: ['8888/http'],
    env: { MODE: 'test' },
    ...extra,
  });

async function reservations(podId: string): Promise<number> {
  const [row] = await scheduler.dataSource.query<{ n: number }[]>(
    'SELECT count(*)::int AS n FROM cluster_scheduler.reservations WHERE pod_id = $1',
    [podId],
  );
  return row.n;
}

async function generation(podId: string): Promise<number> {
  const [row] = await pods.dataSource.query<{ generation: number }[]>(
    'SELECT generation FROM pod_lifecycle.pods WHERE id = $1',
    [podId],
  );
  return row.generation;
}

describe('creating a pod', () => {
  it('places it through the scheduler (host, public address and ports) and emits its status', async () => {
    const pod = await createPod('web');
    expect(pod).toMatchObject({ name: 'web', gpuTypeId: GPU, gpuCount: 1, desiredStatus: PodStatus.Running });
    expect(pod.publicIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(Object.keys(pod.portMappings)).toEqual(['8888']);
    expect(await reservations(pod.id)).toBe(1);
    const changed = (await pods.events(Subjects.pod.statusChanged)).at(-1)?.payload;
    expect(changed).toMatchObject({ podId: pod.id, status: pod.status });
  });

  it("refuses what the scheduler refuses (a GPU type it does not know, 422), and a template that is not the actor's (404)", async () => {
    expect(await pods.refusal(() => createPod('unknown-gpu', { gpuTypeId: 'NVIDIA NOTHING' }))).toMatchObject(
      { wrote: [], code: ErrorCode.ValidationFailed },
    );
    expect(
      await pods.refusal(() => createPod('no-template', { templateId: 'no-such-template' })),
    ).toMatchObject({ wrote: [], code: ErrorCode.NotFound });
  });
});

describe('a pod through its life', () => {
  it('runs once the runtime reports it, stops, starts again, resets and terminates (its GPUs given back)', async () => {
    const pod = await createPod('lifecycle');
    const running = async () =>
      pods.send(
        Subjects.pod.observe,
        { podId: pod.id, generation: await generation(pod.id), status: PodStatus.Running },
        { actor: SYSTEM },
      );
    expect(await running()).toEqual({ applied: true, status: PodStatus.Running });
    const stopped = await pods.send(Subjects.pod.stop, { podId: pod.id });
    expect(stopped.desiredStatus).toBe(PodStatus.Exited);
    const started = await pods.send(Subjects.pod.start, { podId: pod.id });
    expect(started.desiredStatus).toBe(PodStatus.Running);
    await running();
    const reset = await pods.send(Subjects.pod.reset, { podId: pod.id });
    expect(reset.desiredStatus).toBe(PodStatus.Running);
    const terminated = await pods.send(Subjects.pod.terminate, { podId: pod.id });
    expect(terminated.status).toBe(PodStatus.Terminated);
    // The scheduler gives the GPUs and ports back when it hears the pod's TERMINATED status.
    expect(await reservations(pod.id)).toBe(1);
    expect(await scheduler.deliverFrom(pods)).toBeGreaterThan(0);
    expect(await reservations(pod.id)).toBe(0);
  });

  // A credential's delete reads the pods using it under its lock (held here, as a delete in another lane or replica
  // would): a pod that stops using it by terminating waits, so the delete's answer follows a rebuild's order.
  it('a terminate of a pod pulling with a credential waits for a delete of that credential in flight', async () => {
    const credentialId = 'credential-of-terminated';
    await pods.dataSource.query(
      `INSERT INTO pod_lifecycle.registry_auths (id, owner_id, name, username, password_sealed, created_at)
       VALUES ($1, $2, 'private', 'robot', 'v1.test-key.c2VhbGVk', now())`,
      [credentialId, ALICE.userId],
    );
    const pod = await createPod('pulls-privately', { containerRegistryAuthId: credentialId });
    const terminate = await whileHeld(
      pods.dataSource,
      (manager) => registryAuths.lockById(credentialId, manager, 'update'),
      () => pods.send(Subjects.pod.terminate, { podId: pod.id }),
    );
    expect(terminate.waited).toBe(true);
    await expect(terminate.end()).resolves.toMatchObject({ status: PodStatus.Terminated });
  });

  it("refuses another user's pod (403) and a terminated one (INVALID_STATE)", async () => {
    const pod = await createPod('guarded');
    expect(
      await pods.refusal(() => pods.send(Subjects.pod.stop, { podId: pod.id }, { actor: BOB })),
    ).toMatchObject({ wrote: [], code: ErrorCode.Forbidden });
    await pods.send(Subjects.pod.terminate, { podId: pod.id });
    expect(await pods.refusal(() => pods.send(Subjects.pod.start, { podId: pod.id }))).toMatchObject({
      wrote: [],
      code: ErrorCode.InvalidState,
    });
  });

  it("refuses to terminate another user's pod (403) and to reset a terminated one (INVALID_STATE)", async () => {
    const pod = await createPod('kept');
    const theirs = () => pods.send(Subjects.pod.terminate, { podId: pod.id }, { actor: BOB });
    expect(await pods.refusal(theirs)).toMatchObject({ code: ErrorCode.Forbidden, wrote: [] });
    await pods.send(Subjects.pod.terminate, { podId: pod.id });
    expect(await pods.refusal(() => pods.send(Subjects.pod.reset, { podId: pod.id }))).toMatchObject({
      code: ErrorCode.InvalidState,
      wrote: [],
    });
  });

  it("renames a pod, and refuses another user's (403)", async () => {
    const pod = await createPod('before');
    await expect(pods.send(Subjects.pod.update, { podId: pod.id, name: 'after' })).resolves.toMatchObject({
      name: 'after',
    });
    expect(
      await pods.refusal(() =>
        pods.send(Subjects.pod.update, { podId: pod.id, name: 'theirs' }, { actor: BOB }),
      ),
    ).toMatchObject({ wrote: [], code: ErrorCode.Forbidden });
  });

  it('ignores an observation of another run than the current one, or of an unknown pod, writing nothing', async () => {
    const pod = await createPod('stale');
    const next = (await generation(pod.id)) + 1;
    const stale = await pods.wrote(() =>
      pods.send(
        Subjects.pod.observe,
        { podId: pod.id, generation: next, status: PodStatus.Running },
        { actor: SYSTEM },
      ),
    );
    expect(stale).toEqual({ result: { applied: false, status: pod.status }, wrote: [] });
    const unknown = await pods.wrote(() =>
      pods.send(
        Subjects.pod.observe,
        { podId: 'no-such-pod', generation: 1, status: PodStatus.Running },
        { actor: SYSTEM },
      ),
    );
    expect(unknown).toEqual({ result: { applied: false, status: null }, wrote: [] });
  });
});

describe('platform commands', () => {
  it('puts every live pod of a failed host in ERROR', async () => {
    const pod = await createPod('on-a-failing-host');
    const failed = await pods.send(
      Subjects.pod.hostFailed,
      { hostId: pod.machineId!, reason: 'power' },
      { actor: SYSTEM },
    );
    expect(failed.podIds).toContain(pod.id);
    const [row] = await pods.dataSource.query<{ status: string }[]>(
      'SELECT status FROM pod_lifecycle.pods WHERE id = $1',
      [pod.id],
    );
    expect(row.status).toBe(PodStatus.Error);
  });

  it('refuses a host failure without a host (422), and one of a host without live pods writes nothing', async () => {
    const nameless = () => pods.send(Subjects.pod.hostFailed, { hostId: '' }, { actor: SYSTEM });
    expect(await pods.refusal(nameless)).toMatchObject({ code: ErrorCode.ValidationFailed, wrote: [] });
    const idle = () => pods.send(Subjects.pod.hostFailed, { hostId: 'host-without-pods' }, { actor: SYSTEM });
    expect(await pods.wrote(idle)).toEqual({ result: { podIds: [] }, wrote: [] });
  });

  it("seals a pod's variables for the platform, and refuses a user (403)", async () => {
    const pod = await createPod('sealed');
    const sealed = { sealed: 'v1.k1.bm9uY2U.Y2lwaGVy.dGFn', context: pod.id };
    const command = { podId: pod.id, secretEnv: { MODE: sealed } };
    expect(
      await pods.refusal(() => pods.send(Subjects.pod.sealEnv, command, { actor: ALICE })),
    ).toMatchObject({ wrote: [], code: ErrorCode.Forbidden });
    await expect(pods.send(Subjects.pod.sealEnv, command, { actor: SYSTEM })).resolves.toEqual({
      sealed: ['MODE'],
    });
  });
});

describe('cluster members (pod.cmd.create-cluster-members, pod.cmd.terminate-cluster-members)', () => {
  const CLUSTER = 'cluster-handlers';
  const member = (rank: number, clusterId = CLUSTER): ClusterCreatedEvent['members'][number] => ({
    podId: `${clusterId}-pod-${rank}`,
    rank,
    role: rank === 0 ? 'primary' : 'node',
    name: `member-${rank}`,
    placement: {
      podId: `${clusterId}-pod-${rank}`,
      hostId: 'host-0',
      dataCenterId: 'EU-RO-1',
      publicIp: '198.51.100.1',
      gpuTypeId: GPU,
      gpuCount: 8,
      portMappings: {},
    },
    image: 'runpod/pytorch:2.4.0',
    env: {},
    ports: [],
    disk: 50,
    startJupyter: false,
    overlayIp: `10.128.0.${rank + 1}`,
  });
  const cluster: ClusterCreatedEvent = {
    clusterId: CLUSTER,
    ownerId: ALICE.userId,
    members: [member(0), member(1)],
  };
  const statuses = async (clusterId = CLUSTER): Promise<string[]> =>
    (
      await pods.dataSource.query<{ status: string }[]>(
        'SELECT status FROM pod_lifecycle.pods WHERE cluster_id = $1 ORDER BY id',
        [clusterId],
      )
    ).map((row) => row.status);

  it('creates the members once (a second command for the same cluster creates none), then terminates them', async () => {
    const actor = { actor: SYSTEM };
    await expect(pods.send(Subjects.pod.createClusterMembers, { cluster }, actor)).resolves.toEqual({
      pods: 2,
    });
    await expect(pods.send(Subjects.pod.createClusterMembers, { cluster }, actor)).resolves.toEqual({
      pods: 0,
    });
    expect(await statuses()).toEqual([PodStatus.Provisioning, PodStatus.Provisioning]);
    const deleted = { clusterId: CLUSTER, ownerId: ALICE.userId, podIds: [member(0).podId, member(1).podId] };
    await expect(
      pods.send(Subjects.pod.terminateClusterMembers, { cluster: deleted }, actor),
    ).resolves.toEqual({ pods: 2 });
    expect(await statuses()).toEqual([PodStatus.Terminated, PodStatus.Terminated]);
  });

  it("gives each member the event's shared variables with its own on top (an event of earlier versions: its own only)", async () => {
    const id = 'cluster-env';
    const withShared: ClusterCreatedEvent = {
      clusterId: id,
      ownerId: ALICE.userId,
      env: { MASTER_ADDR: '10.128.0.1', WORLD_SIZE: '16', RANK: 'shadowed' },
      members: [0, 1].map((rank) => ({ ...member(rank, id), env: { RANK: String(rank) } })),
    };
    await pods.send(Subjects.pod.createClusterMembers, { cluster: withShared }, { actor: SYSTEM });
    const rows = await pods.dataSource.query<{ env: Record<string, string> }[]>(
      'SELECT env FROM pod_lifecycle.pods WHERE cluster_id = $1 ORDER BY cluster_rank',
      [id],
    );
    expect(rows.map((row) => row.env)).toEqual([
      { MASTER_ADDR: '10.128.0.1', WORLD_SIZE: '16', RANK: '0' },
      { MASTER_ADDR: '10.128.0.1', WORLD_SIZE: '16', RANK: '1' },
    ]);
    const older: ClusterCreatedEvent = {
      clusterId: 'cluster-env-older',
      ownerId: ALICE.userId,
      members: [{ ...member(0, 'cluster-env-older'), env: { RANK: '0', WORLD_SIZE: '1' } }],
    };
    await pods.send(Subjects.pod.createClusterMembers, { cluster: older }, { actor: SYSTEM });
    const [old] = await pods.dataSource.query<{ env: Record<string, string> }[]>(
      'SELECT env FROM pod_lifecycle.pods WHERE cluster_id = $1',
      ['cluster-env-older'],
    );
    expect(old.env).toEqual({ RANK: '0', WORLD_SIZE: '1' });
  });

  it("applied while another replica's terminate of the cluster is in flight, a create waits for it and terminates its members", async () => {
    const id = 'cluster-race';
    const raced: ClusterCreatedEvent = {
      clusterId: id,
      ownerId: ALICE.userId,
      members: [member(0, id), member(1, id)],
    };
    // The terminate, mid-transaction on another replica: the cluster's members locked, its delete written, no commit.
    const terminate = pods.dataSource.createQueryRunner();
    await terminate.connect();
    await terminate.startTransaction();
    const deletedClusters = new DeletedClustersRepository();
    await deletedClusters.lockMembers(id, terminate.manager);
    await deletedClusters.record(id, new Date(), terminate.manager);
    let applied = false;
    const create = pods
      .send(Subjects.pod.createClusterMembers, { cluster: raced }, { actor: SYSTEM })
      .finally(() => (applied = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(applied).toBe(false);
    await terminate.commitTransaction();
    await terminate.release();
    // Without the lock the create would have read "not deleted" and left both members PROVISIONING.
    await expect(create).resolves.toEqual({ pods: 2 });
    expect(await statuses(id)).toEqual([PodStatus.Terminated, PodStatus.Terminated]);
  });

  it('refuses a command without its cluster (422), writing nothing', async () => {
    for (const subject of [Subjects.pod.createClusterMembers, Subjects.pod.terminateClusterMembers]) {
      expect(await pods.refusal(() => pods.send(subject, {}, { actor: SYSTEM }))).toMatchObject({
        code: ErrorCode.ValidationFailed,
        wrote: [],
      });
    }
  });
});
