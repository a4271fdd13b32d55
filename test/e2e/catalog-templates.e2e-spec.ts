import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  EndpointV2View,
  PodV2View,
  PodView,
  TemplateList,
  TemplateV2View,
  TemplateView,
} from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { graphqlClient } from './graphql.e2e-helpers.js';
import { PlacementStandIn, client, expectProblem, type Call } from './pods.e2e-helpers.js';
import { stopPodsSystem } from './pods-system.e2e-helpers.js';

/** The operator's catalog file of this test (the format of apps/pod-lifecycle/catalog-templates.json). */
const CATALOG = {
  version: 1,
  templates: [
    {
      id: 'test-torch',
      name: 'Torch',
      imageName: 'runpod/pytorch:2.1.0-py3.10-cuda11.8.0-devel-ubuntu22.04',
      ports: ['8888/http', '22/tcp'],
      env: { FROM_CATALOG: '1', LEVEL: 'template' },
      containerDiskInGb: 30,
      readme: 'a pod template',
      createdAt: '2026-01-02T03:04:05.000Z',
    },
    { id: 'test-echo-worker', name: 'Echo', imageName: 'gpucp/echo-worker', isServerless: true },
    { id: 'test-verified', name: 'Verified', imageName: 'alpine:3', source: 'verified' },
  ],
};

/**
 * Public templates of the catalog (CATALOG_TEMPLATES_FILE, served by pod-lifecycle): listed at
 * /v2/catalog/templates, readable by anyone at /v1 and /v2 templates/{id}, changed by nobody (403), and a
 * `templateId` of a pod or a serverless endpoint of any user.
 */
describe('public templates of the catalog', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let placement: PlacementStandIn;
  let alice: Call;
  let bob: Call;
  let aliceKey: string;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-templates-e2e-'));
    const file = join(dir, 'catalog-templates.json');
    writeFileSync(file, JSON.stringify(CATALOG));
    db = await createTestDatabase('catalog_templates');
    system = await startApps({
      // endpoint-autoscaler saves endpoints and answers whether one uses a template about to be deleted.
      apps: ['gateway', 'pod-lifecycle', 'endpoint-autoscaler'],
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', CATALOG_TEMPLATES_FILE: file },
        'endpoint-autoscaler': { AUTOSCALER_ENABLED: 'false' },
      },
    });
    placement = await new PlacementStandIn(system.natsPrefix).start();
    aliceKey = (await userWithKey(db.url, 'alice')).key;
    alice = client(system, aliceKey);
    bob = client(system, (await userWithKey(db.url, 'bob')).key);
  });

  afterAll(() => stopPodsSystem({ db, system, placement }));

  it('lists the official slice by default, the others by ?source=; another source is 422', async () => {
    const official = await bob<TemplateList>('GET', '/v2/catalog/templates');
    expect(official.status).toBe(200);
    expect(official.body.templates).toEqual([
      {
        id: 'test-torch',
        name: 'Torch',
        image: 'runpod/pytorch:2.1.0-py3.10-cuda11.8.0-devel-ubuntu22.04',
        args: '',
        disk: 30,
        env: { FROM_CATALOG: '1', LEVEL: 'template' },
        ports: ['8888/http', '22/tcp'],
        registry: null,
        mounts: {},
        serverless: false,
        public: true,
        readme: 'a pod template',
        createdAt: '2026-01-02T03:04:05.000Z',
      },
      expect.objectContaining({ id: 'test-echo-worker', serverless: true, public: true, disk: 20 }),
    ]);
    const verified = await bob<TemplateList>('GET', '/v2/catalog/templates?source=verified');
    expect(verified.body.templates.map((t) => t.id)).toEqual(['test-verified']);
    expect((await bob<TemplateList>('GET', '/v2/catalog/templates?source=community')).body).toEqual({
      templates: [],
    });
    expectProblem(await bob('GET', '/v2/catalog/templates?source=mine'), 422);
    // The caller's own list stays the caller's.
    expect((await bob<TemplateList>('GET', '/v2/templates')).body).toEqual({ templates: [] });
  });

  it('anyone reads a catalog template by id on v1 and v2; nobody changes or deletes it (403)', async () => {
    const v2 = await alice<TemplateV2View>('GET', '/v2/templates/test-torch');
    expect(v2.body).toMatchObject({ id: 'test-torch', public: true });
    const v1 = await bob<TemplateView>('GET', '/v1/templates/test-torch');
    expect(v1.body).toMatchObject({ id: 'test-torch', imageName: CATALOG.templates[0].imageName });
    expect(v1.body).toMatchObject({ isPublic: true, userId: null });
    expectProblem(await alice('GET', '/v2/templates/test-nothing'), 404);

    expectProblem(await alice('PATCH', '/v2/templates/test-torch', { image: 'evil:1' }), 403, /catalog/);
    expectProblem(await alice('PATCH', '/v1/templates/test-torch', { imageName: 'evil:1' }), 403);
    expectProblem(await alice('DELETE', '/v2/templates/test-torch'), 403, /catalog/);
    expectProblem(await bob('DELETE', '/v1/templates/test-echo-worker'), 403);
    const gql = await graphqlClient(
      system,
      aliceKey,
    )('mutation { saveTemplate(input: { id: "test-torch", name: "x", imageName: "evil:1" }) { id } }');
    expect(gql.status).toBe(403);
    expect((await bob<TemplateV2View>('GET', '/v2/templates/test-torch')).body.image).toBe(
      CATALOG.templates[0].imageName,
    );
  });

  it("starts pods from a catalog template on v2 and v1, the request's fields winning", async () => {
    const v2 = await alice<PodV2View>('POST', '/v2/pods', {
      name: 'from-catalog',
      templateId: 'test-torch',
      gpu: { id: 'NVIDIA RTX A4000', count: 1 },
      env: { LEVEL: 'pod' },
    });
    expect(v2.status).toBe(201);
    expect(v2.body).toMatchObject({
      image: CATALOG.templates[0].imageName,
      disk: 30,
      ports: ['8888/http', '22/tcp'],
      env: { FROM_CATALOG: '1', LEVEL: 'pod' },
      templateId: 'test-torch',
    });
    const v1 = await bob<PodView>('POST', '/v1/pods', {
      name: 'from-catalog-v1',
      templateId: 'test-torch',
      imageName: 'runpod/pytorch:2.8.0-py3.11-cuda12.8.1-cudnn-devel-ubuntu22.04',
      gpuTypeId: 'NVIDIA RTX A4000',
    });
    expect(v1.status).toBe(201);
    expect(v1.body).toMatchObject({ templateId: 'test-torch', imageName: expect.stringContaining('2.8.0') });
    // A template in use by pods is still nobody's to delete.
    expectProblem(await alice('DELETE', '/v2/templates/test-torch'), 403);
  });

  it('creates a serverless endpoint from a serverless catalog template; a pod template is 422', async () => {
    const body = (templateId: string) => ({
      name: `ep-${templateId}`,
      type: 'QUEUE',
      templateId,
      gpu: { pools: ['AMPERE_16'] },
      workers: { min: 0, max: 1 },
    });
    const created = await bob<EndpointV2View>('POST', '/v2/serverless', body('test-echo-worker'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ templateId: 'test-echo-worker', type: 'QUEUE' });
    const podTemplate = await bob<{ errors: string[] }>('POST', '/v2/serverless', body('test-torch'));
    expectProblem(podTemplate, 422);
    expect(podTemplate.body.errors).toEqual([expect.stringMatching(/not a serverless template/)]);
    expectProblem(await bob('POST', '/v2/serverless', body('test-nothing')), 404);
  });
});
