import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type TemplateView } from '@app/contracts';
import { BOB, refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers, SYSTEM } from '../../../../../test/support/pod-lifecycle-handlers.js';

/**
 * `template.qry.get` over pod-lifecycle's real schema and its catalog file: a user's template as the template
 * commands left it, a public template of the catalog for anyone (read-only), another user's refused.
 */

/** A public template of apps/pod-lifecycle/catalog-templates.json. */
const CATALOG_ID = 'runpod-torch-v280';

let app: PodLifecycleHandlers;
let harness: HandlerHarness;
let template: TemplateView;

const get = (payload: { id: string; change?: boolean }, actor = {}) =>
  harness.query(Subjects.template.get, payload, actor);

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('get_template');
  harness = app.harness;
  template = await app.createTemplate('web', { env: { MODE: 'test' }, ports: ['8080/http'] });
});

afterAll(async () => {
  await app?.stop();
});

describe('template.qry.get', () => {
  it("answers the actor's template as its create answered it, then as its update left it", async () => {
    await expect(get({ id: template.id })).resolves.toEqual(template);
    await harness.send(Subjects.template.update, { id: template.id, imageName: 'alpine:4' });
    await expect(get({ id: template.id, change: true })).resolves.toMatchObject({
      id: template.id,
      imageName: 'alpine:4',
      isPublic: false,
    });
  });

  it("refuses another user's template (403), shows it to the platform, and answers 404 for one nobody made", async () => {
    expect(await refusalOf(get({ id: template.id }, { actor: BOB }))).toMatchObject({
      code: ErrorCode.Forbidden,
    });
    await expect(get({ id: template.id }, { actor: SYSTEM })).resolves.toMatchObject({ id: template.id });
    expect(await refusalOf(get({ id: 'no-such-template' }))).toMatchObject({ code: ErrorCode.NotFound });
  });

  it('answers a public template of the catalog to anyone, and refuses it to a caller about to change it (403)', async () => {
    const listed = await get({ id: CATALOG_ID }, { actor: BOB });
    expect(listed).toMatchObject({ id: CATALOG_ID, isPublic: true, userId: null });
    await expect(get({ id: CATALOG_ID })).resolves.toEqual(listed);
    expect(await refusalOf(get({ id: CATALOG_ID, change: true }))).toMatchObject({
      code: ErrorCode.Forbidden,
    });
  });
});
