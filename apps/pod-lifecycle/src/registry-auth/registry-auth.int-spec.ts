import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects } from '@app/contracts';
import { ALICE, BOB, type HandlerHarness } from '../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers, SEALED } from '../../../../test/support/pod-lifecycle-handlers.js';
import { whileHeld } from '../../../../test/support/while-held.js';
import type { RegistryAuthRepository } from './registry-auth.repository.js';

/**
 * pod-lifecycle's registry credential commands over its real schema and an in-process bus: each one's success and
 * its main refusal, what it wrote and what it emitted, and how a credential's delete and the templates pulling with
 * it wait for each other.
 */

let app: PodLifecycleHandlers;
let harness: HandlerHarness;
let registryAuths: RegistryAuthRepository;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('registry_auth_commands');
  ({ harness, registryAuths } = app);
});

afterAll(async () => {
  await app?.stop();
});

const createCredential = (name: string) => app.createCredential(name);
const createTemplate = (name: string, extra: Record<string, unknown> = {}) => app.createTemplate(name, extra);

describe('registry credentials', () => {
  it('creates a credential (its password never in the view nor the event), and refuses a second of that name', async () => {
    const credential = await createCredential('docker-hub');
    expect(credential).toMatchObject({ name: 'docker-hub' });
    expect(JSON.stringify(credential)).not.toContain(SEALED);
    const [event] = await harness.events(Subjects.registryAuth.created);
    expect(event.payload).toEqual({ id: credential.id, ownerId: ALICE.userId, name: 'docker-hub' });
    expect(await harness.refusal(() => createCredential('docker-hub'))).toMatchObject({
      wrote: [],
      code: ErrorCode.Conflict,
    });
  });

  it("updates the actor's credential, and refuses another user's (403)", async () => {
    const credential = await createCredential('ghcr');
    const update = { id: credential.id, username: 'bot', passwordSealed: SEALED };
    await expect(harness.send(Subjects.registryAuth.update, update)).resolves.toMatchObject({
      id: credential.id,
    });
    expect(
      await harness.refusal(() => harness.send(Subjects.registryAuth.update, update, { actor: BOB })),
    ).toMatchObject({ wrote: [], code: ErrorCode.Forbidden });
  });

  it('refuses to delete a credential a template pulls with (IN_USE), and deletes it once the template is gone', async () => {
    const credential = await createCredential('quay');
    const template = await createTemplate('private-image', { containerRegistryAuthId: credential.id });
    expect(
      await harness.refusal(() => harness.send(Subjects.registryAuth.delete, { id: credential.id })),
    ).toMatchObject({
      wrote: [],
      code: ErrorCode.InUse,
      message: expect.stringContaining(`template ${template.id}`),
    });
    await harness.send(Subjects.template.delete, { id: template.id });
    await harness.send(Subjects.registryAuth.delete, { id: credential.id });
    const deleted = await harness.events(Subjects.registryAuth.deleted);
    expect(deleted.at(-1)?.payload).toEqual({ id: credential.id, ownerId: ALICE.userId });
  });

  // A credential's delete reads the templates using it under its lock (held here, as a delete in another lane or
  // replica would): a template that stops using it waits, so the delete's answer and the order a rebuild follows
  // agree (a history on two replicas named another template in the rebuild's refusal before).
  it('a template that stops using a credential waits for a delete of that credential in flight', async () => {
    const credential = await createCredential('leaving');
    const template = await createTemplate('moves-off', { containerRegistryAuthId: credential.id });
    const update = await whileHeld(
      harness.dataSource,
      (manager) => registryAuths.lockById(credential.id, manager, 'update'),
      () => harness.send(Subjects.template.update, { id: template.id, containerRegistryAuthId: null }),
    );
    expect(update.waited).toBe(true);
    await expect(update.end()).resolves.toMatchObject({ id: template.id });
  });

  it('a template delete waits for a delete of its credential in flight', async () => {
    const credential = await createCredential('both-going');
    const template = await createTemplate('going-too', { containerRegistryAuthId: credential.id });
    const remove = await whileHeld(
      harness.dataSource,
      (manager) => registryAuths.lockById(credential.id, manager, 'update'),
      () => harness.send(Subjects.template.delete, { id: template.id }),
    );
    expect(remove.waited).toBe(true);
    await expect(remove.end()).resolves.toBeNull();
  });
});
