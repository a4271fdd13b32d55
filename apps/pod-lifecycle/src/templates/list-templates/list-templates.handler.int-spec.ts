import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects, type TemplateView } from '@app/contracts';
import { BOB, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers } from '../../../../../test/support/pod-lifecycle-handlers.js';

/**
 * `template.qry.list` over pod-lifecycle's real schema: the caller's own templates as the template commands left
 * them, oldest first; neither another user's nor the catalog's public ones.
 */

let app: PodLifecycleHandlers;
let harness: HandlerHarness;
let older: TemplateView;
let newer: TemplateView;

const at = (hour: number) => ({ issuedAt: new Date(Date.UTC(2026, 2, 1, hour)).toISOString() });

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('list_templates');
  harness = app.harness;
  // Sent out of the order of their times: the list follows the times.
  newer = await app.createTemplate('newer', {}, at(10));
  const deleted = await app.createTemplate('deleted', {}, at(9));
  older = await app.createTemplate('older', {}, at(8));
  await app.createTemplate('of-bob', {}, { ...at(7), actor: BOB });
  await harness.send(Subjects.template.delete, { id: deleted.id }, at(11));
});

afterAll(async () => {
  await app?.stop();
});

describe('template.qry.list', () => {
  it("answers the caller's templates oldest first, as their commands answered them, a deleted one gone", async () => {
    await expect(harness.query(Subjects.template.list, {})).resolves.toEqual([older, newer]);
  });

  it("answers another user their own only, and a user without templates an empty list (the catalog's are not theirs)", async () => {
    const bobs = await harness.query(Subjects.template.list, {}, { actor: BOB });
    expect(bobs.map((template) => template.name)).toEqual(['of-bob']);
    const none = { actor: { userId: 'user-without-templates', kind: 'user' as const } };
    await expect(harness.query(Subjects.template.list, {}, none)).resolves.toEqual([]);
  });
});
