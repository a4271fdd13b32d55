import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, MASK, PodStatus, Subjects, type PodView } from '@app/contracts';
import { BOB, refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers, SYSTEM } from '../../../../../test/support/pod-lifecycle-handlers.js';

/** `pod.qry.get` over pod-lifecycle's real schema: a pod its commands wrote, as its owner and the platform see it. */

let app: PodLifecycleHandlers;
let pods: HandlerHarness;
let pod: PodView;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('get_pod');
  pods = app.harness;
  pod = await app.createPod('web', { env: { MODE: 'test', API_TOKEN: 'not-to-be-shown' } });
});

afterAll(async () => {
  await app?.stop();
});

describe('pod.qry.get', () => {
  it('answers the pod as its create answered it (secret-looking values masked), then as its commands left it', async () => {
    const found = await pods.query(Subjects.pod.get, { podId: pod.id });
    expect(found).toEqual(pod);
    expect(found.env.API_TOKEN).toBe(MASK);
    await pods.send(Subjects.pod.update, { podId: pod.id, name: 'renamed' });
    await pods.send(Subjects.pod.stop, { podId: pod.id });
    await expect(pods.query(Subjects.pod.get, { podId: pod.id })).resolves.toMatchObject({
      id: pod.id,
      name: 'renamed',
      desiredStatus: PodStatus.Exited,
    });
  });

  it('shows the env in clear when asked withSecrets (a full key), a generated JUPYTER_PASSWORD included; platform secrets never', async () => {
    const jupyter = await app.createPod('jupyter', {
      env: { MODE: 'test', API_TOKEN: 'the-owners-own' },
      startJupyter: true,
    });
    expect(jupyter.env).toEqual({ MODE: 'test', API_TOKEN: MASK, JUPYTER_PASSWORD: MASK });
    // The platform seals one variable (as it does a worker's key): that one stays masked for everyone.
    const sealed = { sealed: 'v1.k1.bm9uY2U.Y2lwaGVy.dGFn', context: jupyter.id };
    await pods.send(
      Subjects.pod.sealEnv,
      { podId: jupyter.id, secretEnv: { MODE: sealed } },
      { actor: SYSTEM },
    );
    const full = await pods.query(Subjects.pod.get, { podId: jupyter.id, withSecrets: true });
    expect(full.env).toEqual({
      API_TOKEN: 'the-owners-own',
      JUPYTER_PASSWORD: expect.stringMatching(/^[a-z0-9]{24}$/),
      MODE: MASK,
    });
    const read = await pods.query(Subjects.pod.get, { podId: jupyter.id });
    expect(read.env).toEqual({ API_TOKEN: MASK, JUPYTER_PASSWORD: MASK, MODE: MASK });
    const listed = await pods.query(Subjects.pod.list, { withSecrets: true });
    expect(listed.find((p) => p.id === jupyter.id)?.env).toEqual(full.env);
    expect(
      (await pods.query(Subjects.pod.list, {})).find((p) => p.id === jupyter.id)?.env.JUPYTER_PASSWORD,
    ).toBe(MASK);
  });

  it("refuses another user's pod (403), and shows it to the platform", async () => {
    expect(await refusalOf(pods.query(Subjects.pod.get, { podId: pod.id }, { actor: BOB }))).toMatchObject({
      code: ErrorCode.Forbidden,
    });
    await expect(pods.query(Subjects.pod.get, { podId: pod.id }, { actor: SYSTEM })).resolves.toMatchObject({
      id: pod.id,
    });
  });

  it('answers 404 for a pod nobody created', async () => {
    expect(await refusalOf(pods.query(Subjects.pod.get, { podId: 'no-such-pod' }))).toMatchObject({
      code: ErrorCode.NotFound,
    });
  });
});
