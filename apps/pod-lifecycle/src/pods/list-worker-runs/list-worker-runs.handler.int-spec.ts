import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PodStatus, Subjects, type Actor, type PodView } from '@app/contracts';
import { ALICE, BOB, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers, SYSTEM } from '../../../../../test/support/pod-lifecycle-handlers.js';

/**
 * `pod.qry.list-worker-runs` over pod-lifecycle's real schema: an endpoint's worker pods as the autoscaler's
 * creates and the pod commands left them, each with how often its container was started again.
 */

/** The autoscaler creates a worker as the platform acting for the endpoint's owner. */
const AUTOSCALER_FOR_ALICE: Actor = { userId: ALICE.userId, kind: 'system' };
const at = (hour: number) => new Date(Date.UTC(2026, 2, 1, hour)).toISOString();

let app: PodLifecycleHandlers;
let pods: HandlerHarness;
let restarted: PodView;
/** What the restarted worker's start answered. */
let started: PodView;
let untouched: PodView;
let gone: PodView;

const worker = (name: string, endpointId: string, hour: number) =>
  app.createPod(
    name,
    { env: { RUNPOD_ENDPOINT_ID: endpointId } },
    { actor: AUTOSCALER_FOR_ALICE, issuedAt: at(hour) },
  );

const runs = (endpointId: string, actor: Actor = ALICE) =>
  pods.query(Subjects.pod.listWorkerRuns, { endpointId }, { actor });

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('list_worker_runs');
  pods = app.harness;
  untouched = await worker('untouched', 'ep-1', 9);
  restarted = await worker('restarted', 'ep-1', 8);
  gone = await worker('gone', 'ep-1', 10);
  await worker('of-another-endpoint', 'ep-2', 11);
  await app.createPod('standalone', {}, { issuedAt: at(12) });
  // One run reported RUNNING, stopped and started again: its second run.
  const generation = await app.generation(restarted.id);
  const observed = { podId: restarted.id, generation, status: PodStatus.Running };
  await pods.send(Subjects.pod.observe, observed, { actor: SYSTEM, issuedAt: at(13) });
  await pods.send(Subjects.pod.stop, { podId: restarted.id }, { issuedAt: at(14) });
  started = await pods.send(Subjects.pod.start, { podId: restarted.id }, { issuedAt: at(15) });
  await pods.send(Subjects.pod.terminate, { podId: gone.id }, { issuedAt: at(16) });
});

afterAll(async () => {
  await app?.stop();
});

describe('pod.qry.list-worker-runs', () => {
  it("answers the endpoint's live workers oldest first, each with its restarts and last start", async () => {
    expect(await runs('ep-1')).toEqual([
      { podId: restarted.id, status: started.status, restarts: 1, lastStartedAt: at(15) },
      { podId: untouched.id, status: PodStatus.Provisioning, restarts: 0, lastStartedAt: at(9) },
    ]);
  });

  it("answers nothing of another user's endpoint, nor of an endpoint without workers", async () => {
    await expect(runs('ep-1', BOB)).resolves.toEqual([]);
    await expect(runs('no-such-endpoint')).resolves.toEqual([]);
  });
});
