import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type RegistryAuthView } from '@app/contracts';
import { BOB, refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers, SEALED } from '../../../../../test/support/pod-lifecycle-handlers.js';

/**
 * `registry-auth.qry.get` over pod-lifecycle's real schema: a credential its commands wrote, to its owner only,
 * and never its password.
 */

let app: PodLifecycleHandlers;
let harness: HandlerHarness;
let credential: RegistryAuthView;

const get = (id: string, actor = {}) => harness.query(Subjects.registryAuth.get, { id }, actor);

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('get_registry_auth');
  harness = app.harness;
  credential = await app.createCredential('docker-hub');
});

afterAll(async () => {
  await app?.stop();
});

describe('registry-auth.qry.get', () => {
  it('answers the owner the credential as its create answered it, without its password', async () => {
    const found = await get(credential.id);
    expect(found).toEqual({ id: credential.id, name: 'docker-hub' });
    expect(JSON.stringify(found)).not.toContain(SEALED);
  });

  it("refuses another user's credential (403), and answers 404 for one nobody made or one deleted", async () => {
    expect(await refusalOf(get(credential.id, { actor: BOB }))).toMatchObject({ code: ErrorCode.Forbidden });
    expect(await refusalOf(get('no-such-credential'))).toMatchObject({ code: ErrorCode.NotFound });
    const deleted = await app.createCredential('short-lived');
    await harness.send(Subjects.registryAuth.delete, { id: deleted.id });
    expect(await refusalOf(get(deleted.id))).toMatchObject({ code: ErrorCode.NotFound });
  });
});
