import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  PodStatus,
  Subjects,
  deriveId,
  type HostStartFailuresEvent,
  type ReportHostHealthCommand,
} from '@app/contracts';
import type { CommandBus, EventContext } from '@app/messaging';
import { PodLifecycleHandlers, SYSTEM, reserve } from '../../../../../test/support/pod-lifecycle-handlers.js';
import type { Observation, PodRun } from '../../runtime/runtime-driver.js';
import { SIM_FAIL_START, SimulatedDriver } from '../../runtime/simulated.driver.js';
import { ReportStartFailuresHandler } from '../report-start-failures/report-start-failures.handler.js';

/**
 * Start failures counted per host in pod.cmd.observe (pods on one host, started by the simulated driver, its
 * SIM_FAIL_START marker making them fail), the event at the threshold and the recorded report-health it is answered
 * with. The scheduler is stood in for.
 */

const HOST = 'gpu-host-1';
let app: PodLifecycleHandlers;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('start_failures');
  // Every pod on one host.
  app.scheduler.answer(Subjects.placement.reserve, (command) => ({ ...reserve(command), hostId: HOST }));
  app.scheduler.answer(Subjects.fleet.reportHealth, (command) => ({
    hostId: command.hostId,
    state: 'UNHEALTHY',
    changed: true,
  }));
});

afterAll(async () => {
  await app?.stop();
});

/** Creates a pod on HOST and runs it through the simulated driver until its start ends (RUNNING or ERROR). */
async function startPod(
  name: string,
  env: Record<string, string>,
): Promise<{ podId: string; status: string }> {
  const pod = await app.createPod(name, { env: { SIM_PROVISION_MS: '0', SIM_START_MS: '0', ...env } });
  const ended = new Promise<Observation>((resolve, reject) => {
    // One pod's reports in order, each applied before the next, as ObservationReporter sends them.
    let chain: Promise<unknown> = Promise.resolve();
    const driver = new SimulatedDriver(
      { provisionMs: 0, startMs: 0 },
      {
        report: (observation) => {
          chain = chain.then(() => app.harness.send(Subjects.pod.observe, observation, { actor: SYSTEM }));
          if (observation.status !== PodStatus.Starting) chain.then(() => resolve(observation), reject);
        },
      },
    );
    void generationOf(pod.id).then((generation) => driver.ensureRunning(run(pod.id, generation, env)));
  });
  const last = await ended;
  return { podId: pod.id, status: last.status };
}

const generationOf = (podId: string) => app.generation(podId);

function run(podId: string, generation: number, env: Record<string, string>): PodRun {
  return {
    podId,
    generation,
    diskEpoch: 1,
    status: PodStatus.Provisioning,
    image: 'alpine:3',
    args: null,
    env: { SIM_PROVISION_MS: '0', SIM_START_MS: '0', ...env },
    secretEnv: { names: [], open: () => ({}) },
    ports: [],
    portMappings: {},
    gpuTypeId: null,
    gpuCount: 1,
    hostId: HOST,
    containerDiskGb: 10,
    pullSecret: null,
  };
}

const streak = async (): Promise<string[]> => {
  const rows = await app.harness.dataSource.query<{ failures: { podId: string }[] }[]>(
    'SELECT failures FROM pod_lifecycle.host_start_failures WHERE host_id = $1',
    [HOST],
  );
  return rows[0]?.failures.map((f) => f.podId) ?? [];
};

const reported = () => app.harness.events(Subjects.pod.hostStartFailures);

describe('pods failing to start on one host', () => {
  it('count per host until a pod runs there; at HOST_START_FAILURES in a row the host is reported', async () => {
    const a = await startPod('fail-a', { [SIM_FAIL_START]: '1' });
    expect(a.status).toBe(PodStatus.Error);
    const b = await startPod('fail-b', { [SIM_FAIL_START]: '1' });
    expect(await streak()).toEqual([a.podId, b.podId]);
    // A pod that reaches RUNNING there ends the streak.
    expect((await startPod('runs', {})).status).toBe(PodStatus.Running);
    expect(await streak()).toEqual([]);

    const c = await startPod('fail-c', { [SIM_FAIL_START]: '1' });
    // Not the host's doing: an image that cannot be pulled, a container that exited with its own code.
    const pull = await app.createPod('pull-fails');
    await app.harness.send(
      Subjects.pod.observe,
      {
        podId: pull.id,
        generation: await generationOf(pull.id),
        status: PodStatus.Error,
        reason: 'ErrImagePull: pull access denied for private/thing',
      },
      { actor: SYSTEM },
    );
    const exits = await app.createPod('exits');
    await app.harness.send(
      Subjects.pod.observe,
      { podId: exits.id, generation: await generationOf(exits.id), status: PodStatus.Error, exitCode: 1 },
      { actor: SYSTEM },
    );
    expect(await streak()).toEqual([c.podId]);
    const d = await startPod('fail-d', { [SIM_FAIL_START]: '1' });
    expect(await reported()).toEqual([]);
    const e = await startPod('fail-e', { [SIM_FAIL_START]: '1' });

    const [event] = await reported();
    const payload = event.payload as HostStartFailuresEvent;
    expect(payload).toEqual({
      hostId: HOST,
      podIds: [c.podId, d.podId, e.podId],
      reason: expect.stringMatching(
        new RegExp(
          `^3 pods failed to start in a row: ${c.podId} \\(simulated start failure: the container did not start\\), ${d.podId}`,
        ),
      ) as unknown as string,
    });
    // Reported, the streak starts over.
    expect(await streak()).toEqual([]);

    // The event is answered by a recorded report-health, its id derived from the event's.
    const [row] = await app.harness.dataSource.query<{ id: string; occurred_at: Date }[]>(
      'SELECT id, occurred_at FROM pod_lifecycle.outbox WHERE subject = $1',
      [Subjects.pod.hostStartFailures],
    );
    const recorded: { commandId: string; subject: string; payload: ReportHostHealthCommand }[] = [];
    const bus = {
      recordReaction: (
        ev: { eventId: string },
        part: string,
        subject: string,
        command: ReportHostHealthCommand,
      ) => {
        recorded.push({ commandId: deriveId(ev.eventId, part), subject, payload: command });
        return Promise.resolve();
      },
    } as unknown as CommandBus;
    const ctx = {
      event: {
        eventId: row.id,
        subject: Subjects.pod.hostStartFailures,
        occurredAt: row.occurred_at.toISOString(),
        correlationId: 'c',
        payload,
      },
    } as EventContext<HostStartFailuresEvent>;
    await new ReportStartFailuresHandler(bus).heard(ctx);
    expect(recorded).toEqual([
      {
        commandId: deriveId(row.id, 'report-health'),
        subject: Subjects.fleet.reportHealth,
        payload: {
          hostId: HOST,
          healthy: false,
          source: 'start-failures',
          code: 'START_FAILURES',
          reason: payload.reason,
        },
      },
    ]);
  });
});
