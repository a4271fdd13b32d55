import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects, toPodV2View, type PodView } from '@app/contracts';
import { ALICE, BOB, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers } from '../../../../../test/support/pod-lifecycle-handlers.js';

/**
 * `pod.qry.list` over pod-lifecycle's real schema: the caller's pods its commands wrote, oldest first, terminated
 * ones and cluster members as the query asks.
 */

let app: PodLifecycleHandlers;
let pods: HandlerHarness;
let first: PodView;
let second: PodView;
let terminated: PodView;

/** Each pod created an hour after the one before, so their order is their creation's, not their ids'. */
const at = (hour: number) => ({ issuedAt: new Date(Date.UTC(2026, 2, 1, hour)).toISOString() });

const ids = async (payload: object, actor = ALICE): Promise<string[]> =>
  (await pods.query(Subjects.pod.list, payload, { actor })).map((pod) => pod.id);

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('list_pods');
  pods = app.harness;
  // Sent out of the order of their times: the list follows the times.
  second = await app.createPod('b-second', {}, at(9));
  terminated = await app.createPod('c-terminated', {}, at(10));
  await pods.send(Subjects.pod.terminate, { podId: terminated.id }, at(11));
  await app.createClusterMembers('cluster-of-alice', ALICE.userId, [0, 1], at(12));
  first = await app.createPod('a-first', {}, at(8));
  await app.createPod('of-bob', {}, { ...at(7), actor: BOB });
});

afterAll(async () => {
  await app?.stop();
});

describe('pod.qry.list', () => {
  it("answers the caller's live pods oldest first, cluster members included, and nobody else's", async () => {
    const members = ['cluster-of-alice-pod-0', 'cluster-of-alice-pod-1'];
    expect(await ids({})).toEqual([first.id, second.id, ...members]);
    const listed = await pods.query(Subjects.pod.list, {});
    expect(listed[0]).toEqual(await pods.query(Subjects.pod.get, { podId: first.id }));
  });

  it('adds the terminated pods when asked, and leaves the cluster members out when asked', async () => {
    const members = ['cluster-of-alice-pod-0', 'cluster-of-alice-pod-1'];
    expect(await ids({ includeTerminated: true })).toEqual([first.id, second.id, terminated.id, ...members]);
    expect(await ids({ standaloneOnly: true })).toEqual([first.id, second.id]);
    expect(await ids({ includeTerminated: true, standaloneOnly: true })).toEqual([
      first.id,
      second.id,
      terminated.id,
    ]);
  });

  it('answers a page of `limit` after the pod `afterId`, in the same order, ties of creation time by id', async () => {
    const [member0, member1] = ['cluster-of-alice-pod-0', 'cluster-of-alice-pod-1'];
    expect(await ids({ limit: 3 })).toEqual([first.id, second.id, member0]);
    // The two members were created at the same instant: the page after the first goes on with the second.
    expect(await ids({ limit: 3, afterId: member0 })).toEqual([member1]);
    expect(await ids({ limit: 1, afterId: first.id })).toEqual([second.id]);
    expect(await ids({ limit: 2, afterId: member1 })).toEqual([]);
    // The cursor may be a pod the page leaves out (a terminated one, when terminated pods are not listed).
    expect(await ids({ limit: 5, afterId: terminated.id, standaloneOnly: true })).toEqual([]);
    expect(await ids({ limit: 2, afterId: second.id, includeTerminated: true })).toEqual([
      terminated.id,
      member0,
    ]);
  });

  it('answers another user their own pods only, and a user without pods an empty list', async () => {
    const [bobs] = await pods.query(Subjects.pod.list, {}, { actor: BOB });
    expect(bobs).toMatchObject({ name: 'of-bob', userId: BOB.userId });
    expect(await ids({ includeTerminated: true }, BOB)).toHaveLength(1);
    expect(await ids({}, { userId: 'user-without-pods', kind: 'user' })).toEqual([]);
  });
});

describe('pod.qry.list-v2', () => {
  it('answers the same pages shaped as the v2 views, a pod changed since a read as it is now', async () => {
    for (const withSecrets of [false, true]) {
      const v1 = await pods.query(Subjects.pod.list, { withSecrets });
      expect(await pods.query(Subjects.pod.listV2, { withSecrets })).toEqual(v1.map(toPodV2View));
      // Read again (its views kept): the same.
      expect(await pods.query(Subjects.pod.listV2, { withSecrets })).toEqual(v1.map(toPodV2View));
    }
    expect(await pods.query(Subjects.pod.listV2, { limit: 1, afterId: first.id })).toEqual([
      toPodV2View(await pods.query(Subjects.pod.get, { podId: second.id })),
    ]);
    await pods.send(Subjects.pod.update, { podId: first.id, name: 'a-renamed' }, at(13));
    const renamed = await pods.query(Subjects.pod.listV2, {});
    expect(renamed[0]).toMatchObject({ id: first.id, name: 'a-renamed' });
    expect(renamed).toEqual((await pods.query(Subjects.pod.list, {})).map(toPodV2View));
  });
});
