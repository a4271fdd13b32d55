import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PodStatus, type PodView, type TemplateView } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { PlacementStandIn, client, expectProblem, waitForPod, type Call } from './pods.e2e-helpers.js';

/** Templates over HTTP: create, list, get, delete (refused while a pod uses the template). */
describe('templates', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let placement: PlacementStandIn;
  let alice: Call;
  let bob: Call;

  const body = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    imageName: 'ghcr.io/acme/trainer:2',
    dockerArgs: 'python train.py',
    env: { EPOCHS: '3', WANDB_API_KEY: 'wandb-secret-123' },
    ports: ['8888/http', '22/tcp'],
    containerDiskInGb: 40,
    volumeMountPath: '/workspace',
    ...extra,
  });

  beforeAll(async () => {
    db = await createTestDatabase('templates', { apps: ['gateway', 'pod-lifecycle', 'endpoint-autoscaler'] });
    system = await startApps({
      // endpoint-autoscaler answers whether an endpoint uses a template about to be deleted.
      apps: ['gateway', 'pod-lifecycle', 'endpoint-autoscaler'],
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      },
    });
    placement = await new PlacementStandIn(system.natsPrefix).start();
    alice = client(system, (await userWithKey(db.url, 'alice')).key);
    bob = client(system, (await userWithKey(db.url, 'bob')).key);
  });

  afterAll(async () => {
    await placement?.stop();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('creates (201), lists and gets a template, secret-looking env values masked', async () => {
    const created = await alice<TemplateView>('POST', '/v1/templates', body('trainer'));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'trainer',
      imageName: 'ghcr.io/acme/trainer:2',
      dockerArgs: 'python train.py',
      env: { EPOCHS: '3', WANDB_API_KEY: '********' },
      ports: ['8888/http', '22/tcp'],
      containerDiskInGb: 40,
      volumeInGb: 0,
      volumeMountPath: '/workspace',
      isServerless: false,
      containerRegistryAuthId: null,
      readme: '',
      userId: expect.any(String),
      isPublic: false,
      createdAt: expect.any(String),
    });
    expect(created.text).not.toContain('wandb-secret-123');
    const list = await alice<TemplateView[]>('GET', '/v1/templates');
    expect(list.body.map((t) => t.name)).toEqual(['trainer']);
    expect((await alice<TemplateView>('GET', `/v1/templates/${created.body.id}`)).body).toEqual(created.body);
    expect((await bob<TemplateView[]>('GET', '/v1/templates')).body).toEqual([]);
  });

  it('a serverless template', async () => {
    const created = await alice<TemplateView>(
      'POST',
      '/v1/templates',
      body('worker', { isServerless: true }),
    );
    expect(created.body.isServerless).toBe(true);
  });

  it('refuses a duplicate name (409), bad fields (422), an unknown credential (404)', async () => {
    await alice('POST', '/v1/templates', body('dup'));
    expectProblem(
      await alice('POST', '/v1/templates', body('dup')),
      409,
      /already have a template named dup/,
    );
    expectProblem(await alice('POST', '/v1/templates', { ...body('bad'), ports: ['http'] }), 422);
    expectProblem(await alice('POST', '/v1/templates', { ...body('bad'), extra: 1 }), 422);
    expectProblem(await alice('POST', '/v1/templates', { name: 'no-image' }), 422);
    expectProblem(
      await alice('POST', '/v1/templates', body('cred', { containerRegistryAuthId: 'nope' })),
      404,
    );
  });

  it('another user’s template: 403; unknown: 404', async () => {
    const created = await alice<TemplateView>('POST', '/v1/templates', body('private'));
    expectProblem(await bob('GET', `/v1/templates/${created.body.id}`), 403);
    expectProblem(await bob('DELETE', `/v1/templates/${created.body.id}`), 403);
    expectProblem(await alice('GET', '/v1/templates/nope'), 404);
    expectProblem(await alice('DELETE', '/v1/templates/nope'), 404);
  });

  it('a pod from a template takes its configuration; the request wins', async () => {
    const template = await alice<TemplateView>('POST', '/v1/templates', body('base'));
    const pod = await alice<PodView>('POST', '/v1/pods', {
      name: 'from-template',
      templateId: template.body.id,
      gpuTypeId: 'NVIDIA A40',
      env: { EPOCHS: '10' },
    });
    expect(pod.status).toBe(201);
    expect(pod.body).toMatchObject({
      image: 'ghcr.io/acme/trainer:2',
      dockerArgs: 'python train.py',
      env: { EPOCHS: '10', WANDB_API_KEY: '********' },
      ports: ['8888/http', '22/tcp'],
      containerDiskInGb: 40,
      volumeMountPath: '/workspace',
      templateId: template.body.id,
    });
    await waitForPod(alice, pod.body.id, PodStatus.Running);
  });

  it('delete: 400 while a pod uses the template and it stays; after the pod is terminated 204, then 404', async () => {
    const template = await alice<TemplateView>('POST', '/v1/templates', body('in-use'));
    const pod = await alice<PodView>('POST', '/v1/pods', {
      name: 'user',
      templateId: template.body.id,
      gpuTypeId: 'A',
    });
    expectProblem(
      await alice('DELETE', `/v1/templates/${template.body.id}`),
      400,
      new RegExp(`template ${template.body.id} is used by pod ${pod.body.id}`),
    );
    expect((await alice('GET', `/v1/templates/${template.body.id}`)).status).toBe(200);

    expect((await alice('DELETE', `/v1/pods/${pod.body.id}`)).status).toBe(204);
    const deleted = await alice('DELETE', `/v1/templates/${template.body.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectProblem(await alice('GET', `/v1/templates/${template.body.id}`), 404);
  });
});
