import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, PodStatus, Subjects } from '@app/contracts';
import { ALICE, BOB, type HandlerHarness } from '../../../../test/support/handler-harness.js';
import {
  GPU,
  PodLifecycleHandlers,
  SEALED,
  SYSTEM,
} from '../../../../test/support/pod-lifecycle-handlers.js';
import { whileHeld } from '../../../../test/support/while-held.js';

/**
 * pod-lifecycle's pod commands over its real schema and an in-process bus, the scheduler stood in for (its
 * reserve answered in the test; its own medium tests cover what it does with a reservation and with the pod's
 * status events): each command's success and its main refusal.
 */

let app: PodLifecycleHandlers;
let pods: HandlerHarness;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('pod_commands');
  pods = app.harness;
});

afterAll(async () => {
  await app?.stop();
});

const createPod = (name: string, extra: Record<string, unknown> = {}) => app.createPod(name, extra);
const generation = (podId: string) => app.generation(podId);
const reserved = (podId: string) =>
  app.scheduler.sent(Subjects.placement.reserve).filter((command) => command.podId === podId);

describe('creating a pod', () => {
  it('places it through the scheduler (host, public address and ports) and emits its status', async () => {
    const pod = await createPod('web');
    expect(pod).toMatchObject({ name: 'web', gpuTypeId: GPU, gpuCount: 1, desiredStatus: PodStatus.Running });
    expect(reserved(pod.id)).toEqual([
      expect.objectContaining({ ownerId: ALICE.userId, gpuTypeId: GPU, gpuCount: 1, ports: ['8888/http'] }),
    ]);
    expect(pod).toMatchObject({
      machineId: `host-of-${pod.id}`,
      publicIp: '198.51.100.7',
      portMappings: { '8888': 40000 },
    });
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

  it("gives a pod its template's pod volume unless its request asks for storage of its own", async () => {
    const template = await app.createTemplate('with-volume', { volumeInGb: 25 });
    expect(template).toMatchObject({ volumeInGb: 25, volumeMountPath: '/workspace' });
    const mounts = async (podId: string) =>
      (
        await pods.dataSource.query<{ mounts: unknown; volume_mount_path: string | null }[]>(
          'SELECT mounts, volume_mount_path FROM pod_lifecycle.pods WHERE id = $1',
          [podId],
        )
      )[0];
    const plain = await createPod('from-template', { templateId: template.id });
    expect(plain.volumeMountPath).toBe('/workspace');
    expect(await mounts(plain.id)).toEqual({
      mounts: { persistent: { size: 25, path: '/workspace' } },
      volume_mount_path: '/workspace',
    });
    const elsewhere = await createPod('elsewhere', { templateId: template.id, volumeMountPath: '/data' });
    expect((await mounts(elsewhere.id)).mounts).toEqual({ persistent: { size: 25, path: '/data' } });
    const own = await createPod('own', {
      templateId: template.id,
      mounts: { persistent: { size: 10, path: '/own' } },
    });
    expect((await mounts(own.id)).mounts).toEqual({ persistent: { size: 10, path: '/own' } });
    // A template without a volume gives none.
    const bare = await createPod('bare', { templateId: (await app.createTemplate('bare')).id });
    expect(await mounts(bare.id)).toEqual({ mounts: null, volume_mount_path: null });
    // /v1's and GraphQL's volumeInGb is the pod's own: over its template's, at the request's path or /workspace.
    const sized = await createPod('sized', { templateId: template.id, volumeInGb: 40 });
    expect(sized).toMatchObject({ volumeInGb: 40, volumeMountPath: '/workspace' });
    expect((await mounts(sized.id)).mounts).toEqual({ persistent: { size: 40, path: '/workspace' } });
  });

  it('refuses a volume disk with a network volume, or on a CPU pod, naming the fields as the request did', async () => {
    const both = { volumeInGb: 20, networkVolumeId: 'nv-1' };
    expect(await pods.refusal(() => createPod('both', both))).toEqual({
      code: ErrorCode.BadRequest,
      message: 'volumeInGb and networkVolumeId: a pod has one volume, set one of them',
      wrote: [],
    });
    const v2 = {
      mounts: { persistent: { size: 20, path: '/w' } },
      networkVolumeId: 'nv-1',
      vocabulary: 'v2',
    };
    expect(await pods.refusal(() => createPod('both-v2', v2))).toMatchObject({
      message: 'mounts.persistent and mounts.network.0.volumeId: a pod has one volume, set one of them',
    });
    const cpu = {
      computeType: 'CPU',
      gpuTypeId: undefined,
      gpuCount: 0,
      cpuFlavorId: 'cpu3c',
      volumeInGb: 20,
    };
    expect(await pods.refusal(() => createPod('cpu-volume', cpu))).toMatchObject({
      code: ErrorCode.BadRequest,
      message: 'volumeInGb is not allowed on a CPU pod',
    });
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
    // The start reserved the GPUs again on the pod's host; the scheduler gives them back when it hears the pod's
    // TERMINATED status (nothing is sent to it for that).
    expect(reserved(pod.id).map((command) => command.hostId)).toEqual([undefined, pod.machineId]);
    const changed = (await pods.events(Subjects.pod.statusChanged)).at(-1)?.payload;
    expect(changed).toMatchObject({ podId: pod.id, status: PodStatus.Terminated });
  });

  // A credential's delete reads the pods using it under its lock (held here, as a delete in another lane or replica
  // would): a pod that stops using it by terminating waits, so the delete's answer follows a rebuild's order.
  it('a terminate of a pod pulling with a credential waits for a delete of that credential in flight', async () => {
    const credentialId = 'credential-of-terminated';
    await pods.dataSource.query(
      `INSERT INTO pod_lifecycle.registry_auths (id, owner_id, name, username, password_sealed, created_at)
       VALUES ($1, $2, 'private', 'robot', $3, now())`,
      [credentialId, ALICE.userId, SEALED],
    );
    const pod = await createPod('pulls-privately', { containerRegistryAuthId: credentialId });
    const terminate = await whileHeld(
      pods.dataSource,
      (manager) => app.registryAuths.lockById(credentialId, manager, 'update'),
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
