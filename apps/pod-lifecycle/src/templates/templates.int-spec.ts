import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects } from '@app/contracts';
import { ALICE, BOB, type HandlerHarness } from '../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers } from '../../../../test/support/pod-lifecycle-handlers.js';

/**
 * pod-lifecycle's template commands over its real schema and an in-process bus: each one's success and its main
 * refusal, what it wrote and what it emitted.
 */

let app: PodLifecycleHandlers;
let harness: HandlerHarness;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('template_commands');
  ({ harness } = app);
});

afterAll(async () => {
  await app?.stop();
});

const createTemplate = (name: string, extra: Record<string, unknown> = {}) => app.createTemplate(name, extra);

describe('templates', () => {
  it('creates a template with its defaults, and refuses a credential that is not the actor’s (404)', async () => {
    const template = await createTemplate('web');
    expect(template).toMatchObject({
      name: 'web',
      imageName: 'alpine:3',
      containerDiskInGb: 20,
      isServerless: false,
    });
    const unknown = createTemplate('pulls-unknown', { containerRegistryAuthId: 'no-such-credential' });
    expect(await harness.refusal(() => unknown)).toMatchObject({ wrote: [], code: ErrorCode.NotFound });
  });

  it('updates a template, and refuses to change one of the public catalog (403)', async () => {
    const template = await createTemplate('to-edit');
    const updated = await harness.send(Subjects.template.update, { id: template.id, imageName: 'alpine:4' });
    expect(updated.imageName).toBe('alpine:4');
    const catalogEdit = harness.send(Subjects.template.update, { id: 'runpod-torch-v280', imageName: 'x:1' });
    expect(await harness.refusal(() => catalogEdit)).toMatchObject({ wrote: [], code: ErrorCode.Forbidden });
  });

  it("deletes a template (template.evt.deleted), and refuses another user's (403)", async () => {
    const template = await createTemplate('to-delete');
    expect(
      await harness.refusal(() =>
        harness.send(Subjects.template.delete, { id: template.id }, { actor: BOB }),
      ),
    ).toMatchObject({ wrote: [], code: ErrorCode.Forbidden });
    await harness.send(Subjects.template.delete, { id: template.id });
    const deleted = await harness.events(Subjects.template.deleted);
    expect(deleted.at(-1)?.payload).toEqual({ id: template.id, ownerId: ALICE.userId });
  });
});
