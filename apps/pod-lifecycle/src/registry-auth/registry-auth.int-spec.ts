import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type RegistryAuthView, type TemplateView } from '@app/contracts';
import { ALICE, BOB, HandlerHarness } from '../../../../test/support/handler-harness.js';
import { whileHeld } from '../../../../test/support/while-held.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import { PodLifecycleConfig } from '../pod-lifecycle.config.js';
import { CreateRegistryAuthHandler } from './create-registry-auth/create-registry-auth.handler.js';
import { DeleteRegistryAuthHandler } from './delete-registry-auth/delete-registry-auth.handler.js';
import { RegistryAuthRepository } from './registry-auth.repository.js';
import { UpdateRegistryAuthHandler } from './update-registry-auth/update-registry-auth.handler.js';
import { PodRepository } from '../pods/pod.repository.js';
import { SetSpendLimitHandler } from '../spend/set-spend-limit/set-spend-limit.handler.js';
import { SpendLimitsRepository } from '../spend/spend-limits.repository.js';
import { CatalogTemplates } from '../templates/catalog-templates.js';
import { CreateTemplateHandler } from '../templates/create-template/create-template.handler.js';
import { DeleteTemplateHandler } from '../templates/delete-template/delete-template.handler.js';
import { TemplateRepository } from '../templates/template.repository.js';
import { UpdateTemplateHandler } from '../templates/update-template/update-template.handler.js';

/**
 * pod-lifecycle's credential, template and spend-limit command handlers over its real schema (its migrations)
 * and an in-process bus: each one's success and its main refusal, what it wrote and what it emitted.
 */

/** A password as the gateway seals it (the handlers store it and never open it). */
const SEALED = 'v1.test-key.c2VhbGVk';

let harness: HandlerHarness;
let registryAuths: RegistryAuthRepository;

beforeAll(async () => {
  harness = await HandlerHarness.start('pod_lifecycle_handlers', 'pod-lifecycle', DATA_SOURCE_SPEC);
  const { dataSource } = harness;
  registryAuths = new RegistryAuthRepository(dataSource);
  const templates = new TemplateRepository(dataSource);
  const pods = new PodRepository(dataSource);
  const catalog = new CatalogTemplates(new PodLifecycleConfig());
  catalog.onModuleInit();
  harness.register(
    new CreateRegistryAuthHandler(registryAuths),
    new UpdateRegistryAuthHandler(registryAuths),
    new DeleteRegistryAuthHandler(registryAuths, templates, pods),
    new CreateTemplateHandler(templates, registryAuths),
    new UpdateTemplateHandler(templates, registryAuths, catalog),
    new DeleteTemplateHandler(templates, pods, catalog, registryAuths),
    new SetSpendLimitHandler(new SpendLimitsRepository(dataSource)),
  );
});

afterAll(async () => {
  await harness?.stop();
});

const createCredential = (name: string): Promise<RegistryAuthView> =>
  harness.send(Subjects.registryAuth.create, { name, username: 'robot', passwordSealed: SEALED });

const createTemplate = (name: string, extra: Record<string, unknown> = {}): Promise<TemplateView> =>
  harness.send(Subjects.template.create, { name, imageName: 'alpine:3', ...extra });

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
