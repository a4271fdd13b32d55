import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PodStatus, type PodView } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { PlacementStandIn, client, getPod, sleep, until, waitForPod, type Call } from './pods.e2e-helpers.js';

const { Running, Exited, Error: Err, Terminated } = PodStatus;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The local runtime really runs processes: a catalog image (from a catalog file of this test) runs as a child
 * process of pod-lifecycle with the pod's env, in its own working directory under LOCAL_PODS_DIR.
 */
describe('pods on the local runtime', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let placement: PlacementStandIn;
  let alice: Call;
  let dir: string;
  const podsDir = () => join(dir, 'pods');
  const workdir = (podId: string) => join(podsDir(), podId);
  const pidOf = (podId: string) => Number(readFileSync(join(workdir(podId), 'pid'), 'utf8').trim());
  const started: number[] = [];

  async function create(name: string, imageName: string, env: Record<string, string> = {}): Promise<PodView> {
    const reply = await alice<PodView>('POST', '/v1/pods', {
      name,
      imageName,
      gpuTypeId: 'NVIDIA L4',
      env,
      ports: ['8080/http'],
    });
    expect(reply.status).toBe(201);
    return reply.body;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gpucp-local-pods-'));
    writeFileSync(
      join(dir, 'catalog.json'),
      JSON.stringify({
        images: {
          'test/writer': {
            command: [
              '/bin/sh',
              '-c',
              'echo $$ > pid; echo "$GREETING from $RUNPOD_POD_ID" > hello.txt; exec sleep 300',
            ],
          },
          'test/fails': { command: ['/bin/sh', '-c', 'echo broken >&2; exit 7'] },
          'test/done': { command: ['/bin/sh', '-c', 'echo done > done.txt'] },
        },
      }),
    );
    db = await createTestDatabase('pods_local', { apps: ['gateway', 'pod-lifecycle'] });
    system = await startApps({
      apps: ['gateway', 'pod-lifecycle'],
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'local',
          LOCAL_IMAGE_CATALOG: join(dir, 'catalog.json'),
          LOCAL_PODS_DIR: podsDir(),
          LOCAL_READY_MS: '200',
          SIM_PROVISION_MS: '100',
          SIM_START_MS: '100',
        },
      },
    });
    placement = await new PlacementStandIn(system.natsPrefix).start();
    alice = client(system, (await userWithKey(db.url, 'alice')).key);
  });

  afterAll(async () => {
    await placement?.stop();
    await system?.stop();
    // pod-lifecycle stops its processes on shutdown; make sure none of this test's survived it.
    expect(started.filter(alive)).toEqual([]);
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the catalog command with the pod’s env in the pod’s working directory: RUNNING', async () => {
    const pod = await create('writer', 'test/writer', { GREETING: 'hello' });
    await waitForPod(alice, pod.id, Running);
    expect(readFileSync(join(workdir(pod.id), 'hello.txt'), 'utf8')).toBe(`hello from ${pod.id}\n`);
    const pid = pidOf(pod.id);
    started.push(pid);
    expect(alive(pid)).toBe(true);
  });

  it('reset kills the process and starts it again in a fresh working directory', async () => {
    const pod = await waitForPod(
      alice,
      (await create('reset-me', 'test/writer', { GREETING: 'hi' })).id,
      Running,
    );
    const firstPid = pidOf(pod.id);
    started.push(firstPid);
    writeFileSync(join(workdir(pod.id), 'scratch.txt'), 'left behind');

    const reset = await alice<PodView>('POST', `/v1/pods/${pod.id}/reset`);
    expect(reset.status).toBe(200);
    await waitForPod(alice, pod.id, Running);
    await until('the new process to write its pid', () => existsSync(join(workdir(pod.id), 'pid')));
    const secondPid = pidOf(pod.id);
    started.push(secondPid);
    expect(secondPid).not.toBe(firstPid);
    expect(alive(firstPid)).toBe(false);
    expect(alive(secondPid)).toBe(true);
    expect(existsSync(join(workdir(pod.id), 'scratch.txt'))).toBe(false);
    expect(readFileSync(join(workdir(pod.id), 'hello.txt'), 'utf8')).toBe(`hi from ${pod.id}\n`);
  });

  it('killing the process moves the pod to ERROR', async () => {
    const pod = await waitForPod(alice, (await create('kill-me', 'test/writer')).id, Running);
    const pid = pidOf(pod.id);
    started.push(pid);
    process.kill(pid, 'SIGKILL');
    expect(await waitForPod(alice, pod.id, Err)).toMatchObject({
      statusReason: 'the process was killed by SIGKILL',
    });
  });

  it('stop ends the process and keeps the disk; start runs it again on the same disk', async () => {
    const pod = await waitForPod(alice, (await create('stop-start', 'test/writer')).id, Running);
    const pid = pidOf(pod.id);
    started.push(pid);
    writeFileSync(join(workdir(pod.id), 'kept.txt'), 'data');
    expect((await alice<PodView>('POST', `/v1/pods/${pod.id}/stop`)).body.status).toBe(Exited);
    await until('the process to end', () => !alive(pid));
    await sleep(300);
    expect((await getPod(alice, pod.id)).status).toBe(Exited); // an intended stop is not an ERROR
    expect(existsSync(join(workdir(pod.id), 'kept.txt'))).toBe(true);

    await alice('POST', `/v1/pods/${pod.id}/start`);
    await waitForPod(alice, pod.id, Running);
    await until('a new pid', () => pidOf(pod.id) !== pid);
    started.push(pidOf(pod.id));
    expect(existsSync(join(workdir(pod.id), 'kept.txt'))).toBe(true);
  });

  it('exit code 0 → EXITED, another code → ERROR', async () => {
    const done = await create('done', 'test/done');
    expect(await waitForPod(alice, done.id, Exited)).toMatchObject({
      statusReason: 'the process exited with code 0',
    });
    expect(readFileSync(join(workdir(done.id), 'done.txt'), 'utf8')).toBe('done\n');
    const fails = await create('fails', 'test/fails');
    expect(await waitForPod(alice, fails.id, Err)).toMatchObject({
      statusReason: 'the process exited with code 7',
    });
    expect(readFileSync(join(podsDir(), `${fails.id}.log`), 'utf8')).toContain('broken');
  });

  it('terminate ends the process and deletes the working directory', async () => {
    const pod = await waitForPod(alice, (await create('terminate-me', 'test/writer')).id, Running);
    const pid = pidOf(pod.id);
    started.push(pid);
    expect((await alice('DELETE', `/v1/pods/${pod.id}`)).status).toBe(204);
    expect((await getPod(alice, pod.id)).status).toBe(Terminated);
    await until(
      'the process to end and the directory to go',
      () => !alive(pid) && !existsSync(workdir(pod.id)),
    );
  });

  it('an image not in the catalog is simulated', async () => {
    const pod = await create('simulated', 'runpod/base:0.6.2');
    await waitForPod(alice, pod.id, Running);
    expect(existsSync(workdir(pod.id))).toBe(false);
  });
});
