import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PodStatus, Subjects, type PodView } from '@app/contracts';
import { BOB, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers, SYSTEM } from '../../../../../test/support/pod-lifecycle-handlers.js';

/** `pod.qry.states` over pod-lifecycle's real schema: many pods' states in one query, as `pod.qry.get` shows them. */

let app: PodLifecycleHandlers;
let pods: HandlerHarness;
let web: PodView;
let batch: PodView;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('list_pod_states');
  pods = app.harness;
  web = await app.createPod('web');
  batch = await app.createPod('batch');
  await pods.send(Subjects.pod.stop, { podId: batch.id });
});

afterAll(async () => {
  await app?.stop();
});

describe('pod.qry.states', () => {
  it("answers each known pod's state as pod.qry.get does, and leaves unknown ids out", async () => {
    const states = await pods.query(
      Subjects.pod.states,
      { podIds: [web.id, 'no-such-pod', batch.id] },
      { actor: SYSTEM },
    );
    const byId = new Map(states.map((s) => [s.id, s]));
    expect([...byId.keys()].sort()).toEqual([web.id, batch.id].sort());
    for (const id of [web.id, batch.id]) {
      const pod = await pods.query(Subjects.pod.get, { podId: id }, { actor: SYSTEM });
      expect(byId.get(id)).toEqual({
        id,
        status: pod.status,
        desiredStatus: pod.desiredStatus,
        statusReason: pod.statusReason,
        lastStatusChange: pod.lastStatusChange,
      });
    }
    expect(byId.get(batch.id)?.desiredStatus).toBe(PodStatus.Exited);
  });

  it('shows a user only their own pods, and nothing for no ids', async () => {
    expect(await pods.query(Subjects.pod.states, { podIds: [web.id, batch.id] })).toHaveLength(2);
    expect(await pods.query(Subjects.pod.states, { podIds: [web.id] }, { actor: BOB })).toEqual([]);
    expect(await pods.query(Subjects.pod.states, { podIds: [] }, { actor: SYSTEM })).toEqual([]);
  });
});
