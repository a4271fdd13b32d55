import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects } from '@app/contracts';
import { BOB, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers, SEALED } from '../../../../../test/support/pod-lifecycle-handlers.js';

/**
 * `registry-auth.qry.list` over pod-lifecycle's real schema: the caller's credentials as their commands left
 * them, oldest first, never a password nor another user's.
 */

let app: PodLifecycleHandlers;
let harness: HandlerHarness;

const at = (hour: number) => ({ issuedAt: new Date(Date.UTC(2026, 2, 1, hour)).toISOString() });
const names = async (actor = {}) =>
  (await harness.query(Subjects.registryAuth.list, {}, actor)).map((credential) => credential.name);

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('list_registry_auth');
  harness = app.harness;
  // Sent out of the order of their times: the list follows the times.
  await app.createCredential('newer', at(10));
  const deleted = await app.createCredential('deleted', at(9));
  await app.createCredential('older', at(8));
  await app.createCredential('of-bob', { ...at(7), actor: BOB });
  await harness.send(Subjects.registryAuth.delete, { id: deleted.id }, at(11));
});

afterAll(async () => {
  await app?.stop();
});

describe('registry-auth.qry.list', () => {
  it("answers the caller's credentials oldest first, a deleted one gone, without their passwords", async () => {
    const listed = await harness.query(Subjects.registryAuth.list, {});
    expect(listed.map((credential) => credential.name)).toEqual(['older', 'newer']);
    expect(listed.every((credential) => Object.keys(credential).sort().join() === 'id,name')).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(SEALED);
  });

  it('answers another user their own only, and a user without credentials an empty list', async () => {
    expect(await names({ actor: BOB })).toEqual(['of-bob']);
    expect(await names({ actor: { userId: 'user-without-credentials', kind: 'user' } })).toEqual([]);
  });
});
