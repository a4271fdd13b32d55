import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects } from '@app/contracts';
import { ALICE, BOB, type HandlerHarness } from '../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers } from '../../../../test/support/pod-lifecycle-handlers.js';

/** pod-lifecycle's spend-limit command over its real schema: the user's own limit under the operator's cap. */

let app: PodLifecycleHandlers;
let harness: HandlerHarness;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('spend_limit_commands');
  ({ harness } = app);
});

afterAll(async () => {
  await app?.stop();
});

describe('spend limits', () => {
  it("sets the user's own limit under the operator's cap, and refuses one above it (422)", async () => {
    const operator = { actor: { userId: 'operator', kind: 'system' as const } };
    await harness.send(
      Subjects.spend.setLimit,
      { userId: ALICE.userId, setBy: 'operator', monthlyLimit: 100 },
      operator,
    );
    const own = await harness.send(Subjects.spend.setLimit, {
      userId: ALICE.userId,
      setBy: 'user',
      monthlyLimit: 40,
    });
    expect(own).toEqual({ userId: ALICE.userId, operatorLimit: 100, userLimit: 40, monthlyLimit: 40 });
    const above = harness.send(Subjects.spend.setLimit, {
      userId: ALICE.userId,
      setBy: 'user',
      monthlyLimit: 150,
    });
    expect(await harness.refusal(() => above)).toMatchObject({ wrote: [], code: ErrorCode.ValidationFailed });
  });

  it("refuses a user setting the operator's cap, or another user's limit (403)", async () => {
    const cap = harness.send(Subjects.spend.setLimit, {
      userId: ALICE.userId,
      setBy: 'operator',
      monthlyLimit: 1,
    });
    expect(await harness.refusal(() => cap)).toMatchObject({ wrote: [], code: ErrorCode.Forbidden });
    const others = harness.send(Subjects.spend.setLimit, {
      userId: BOB.userId,
      setBy: 'user',
      monthlyLimit: 1,
    });
    expect(await harness.refusal(() => others)).toMatchObject({ wrote: [], code: ErrorCode.Forbidden });
  });
});
