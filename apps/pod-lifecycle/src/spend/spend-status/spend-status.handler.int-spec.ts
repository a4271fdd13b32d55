import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects, type Actor, type VolumeUsageRecord } from '@app/contracts';
import { ALICE, BOB, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers } from '../../../../../test/support/pod-lifecycle-handlers.js';

/**
 * `spend.qry.status` over pod-lifecycle's real schema: the caller's limits (set by the spend-limit command) and the
 * month's spend up to `at`, from the usage its pod commands metered and the network volumes' cost (the scheduler's
 * `volume.qry.usage`, answered here: 0.5 for Alice, nothing for anyone else).
 */

const T0 = '2026-03-01T12:00:00.000Z';
const after = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
/** One GPU at 1.5 an hour and 20 GB of container disk at 0.0001 per GB-hour (RATES): 1.502 an hour. */
const PER_HOUR = 1.502;
const VOLUMES = 0.5;
const OPERATOR: Actor = { userId: 'operator', kind: 'system' };

let app: PodLifecycleHandlers;
let harness: HandlerHarness;

const status = (payload: { at?: string; check?: boolean }, actor: Actor = ALICE) =>
  harness.query(Subjects.spend.status, payload, { actor });

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('spend_status');
  harness = app.harness;
  app.queries.answer(Subjects.volume.usage, (_payload, actor): VolumeUsageRecord[] =>
    actor.userId === ALICE.userId
      ? [{ bucket: '2026-03-01T00:00:00.000Z', resourceId: 'volume-1', gbSeconds: 36_000, cost: VOLUMES }]
      : [],
  );
  await app.createPod('alices', {}, { issuedAt: T0 });
  await app.createPod('bobs', {}, { issuedAt: T0, actor: BOB });
});

afterAll(async () => {
  await app?.stop();
});

describe('spend.qry.status', () => {
  it("answers the month's spend up to `at` of the caller's pods and volumes, without a limit never reached", async () => {
    await expect(status({ at: after(120) })).resolves.toEqual({
      userId: ALICE.userId,
      operatorLimit: null,
      userLimit: null,
      monthlyLimit: null,
      month: '2026-03',
      startTime: '2026-03-01T00:00:00.000Z',
      endTime: after(120),
      spend: 2 * PER_HOUR + VOLUMES,
      reached: false,
    });
    expect(app.queries.asked.at(-1)).toEqual({
      subject: Subjects.volume.usage,
      payload: { from: '2026-03-01T00:00:00.000Z', to: after(120), bucket: 'day' },
      actor: ALICE,
    });
  });

  it("counts only the caller's own usage (another user's pod is not theirs)", async () => {
    await expect(status({ at: after(120) }, BOB)).resolves.toMatchObject({ spend: 2 * PER_HOUR });
  });

  it("counts from the start of `at`'s month", async () => {
    await expect(status({ at: '2026-04-01T01:00:00.000Z' })).resolves.toMatchObject({
      month: '2026-04',
      startTime: '2026-04-01T00:00:00.000Z',
      spend: PER_HOUR + VOLUMES,
    });
  });

  it("an owner's check without a limit counts nothing and asks the scheduler nothing", async () => {
    const asked = app.queries.asked.length;
    await expect(status({ at: after(120), check: true })).resolves.toMatchObject({
      spend: 0,
      reached: false,
    });
    expect(app.queries.asked).toHaveLength(asked);
  });

  it('with a limit, is reached once the spend reaches the lower of the two limits', async () => {
    const limit = { userId: ALICE.userId, setBy: 'operator', monthlyLimit: 3 };
    await harness.send(Subjects.spend.setLimit, limit, { actor: OPERATOR });
    await harness.send(Subjects.spend.setLimit, { userId: ALICE.userId, setBy: 'user', monthlyLimit: 2 });
    const limits = { operatorLimit: 3, userLimit: 2, monthlyLimit: 2 };
    await expect(status({ at: after(30), check: true })).resolves.toMatchObject({
      ...limits,
      spend: PER_HOUR / 2 + VOLUMES,
      reached: false,
    });
    await expect(status({ at: after(60), check: true })).resolves.toMatchObject({
      ...limits,
      spend: PER_HOUR + VOLUMES,
      reached: true,
    });
    await expect(status({ at: after(60) }, BOB)).resolves.toMatchObject({
      monthlyLimit: null,
      reached: false,
    });
  });
});
