import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EndpointV2View, TemplateV2View } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { errorCode, graphqlClient, type Graphql } from './graphql.e2e-helpers.js';
import { client, expectProblem, type Call } from './pods.e2e-helpers.js';

/**
 * A template a serverless endpoint names cannot be deleted, on any surface, until the endpoint is gone; an
 * endpoint created from an image gets a template of its own.
 */
describe('templates used by serverless endpoints', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;
  let aliceGql: Graphql;

  beforeAll(async () => {
    const apps = ['gateway', 'cluster-scheduler', 'pod-lifecycle', 'endpoint-autoscaler'] as const;
    db = await createTestDatabase('templates_in_use', { apps });
    system = await startApps({
      apps,
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated' },
        'endpoint-autoscaler': { AUTOSCALER_ENABLED: 'false' },
      },
    });
    const aliceKey = (await userWithKey(db.url, 'alice')).key;
    alice = client(system, aliceKey);
    aliceGql = graphqlClient(system, aliceKey);
  });

  /** A v2 create's body without its container (`templateId` or `image`). */
  const endpoint = (name: string) => ({
    name,
    type: 'QUEUE',
    gpu: { pools: ['AMPERE_16'], count: 1 },
    workers: { min: 0, max: 1 },
    scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
    env: { MODEL: 'm' },
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('delete is 400 on v2, v1 and GraphQL while an endpoint names the template; 204 after the endpoint is deleted', async () => {
    const { body: template } = await alice<TemplateV2View>('POST', '/v2/templates', {
      name: 'worker',
      image: 'gpucp/echo-worker',
      serverless: true,
    });
    const saved = await aliceGql<{ saveEndpoint: { id: string } }>(
      `mutation { saveEndpoint(input: { name: "e", templateId: "${template.id}", gpuIds: "AMPERE_16", workersMin: 0, workersMax: 0 }) { id } }`,
    );
    expect(saved.body.errors).toBeUndefined();
    const endpointId = saved.body.data!.saveEndpoint.id;

    const inUse = new RegExp(`used by serverless endpoint ${endpointId}`);
    expectProblem(await alice('DELETE', `/v2/templates/${template.id}`), 400, inUse);
    expectProblem(await alice('DELETE', `/v1/templates/${template.id}`), 400, inUse);
    expect(errorCode(await aliceGql('mutation { deleteTemplate(templateName: "worker") }'))).toBe('IN_USE');
    expect((await alice('GET', `/v2/templates/${template.id}`)).status).toBe(200);

    const deleted = await aliceGql(`mutation { deleteEndpoint(id: "${endpointId}") }`);
    expect(deleted.body.errors).toBeUndefined();
    expect((await alice('DELETE', `/v2/templates/${template.id}`)).status).toBe(204);
  });

  it('creates an endpoint from an image: its own serverless template, named after it; nothing left if refused', async () => {
    const fromImage = {
      ...endpoint('from-image'),
      image: 'ghcr.io/acme/worker:1',
      args: 'python handler.py',
      disk: 15,
      ports: ['8000/http'],
    };
    const created = await alice<EndpointV2View>('POST', '/v2/serverless', fromImage);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'from-image', env: { MODEL: 'm' }, version: 1 });
    expect((await alice<EndpointV2View>('GET', `/v2/serverless/${created.body.id}`)).body).toEqual(
      created.body,
    );
    const made = await alice<{ name: string; image: string; args: string; disk: number; ports: string[] }>(
      'GET',
      `/v2/templates/${created.body.templateId}`,
    );
    expect(made.body).toMatchObject({
      name: expect.stringMatching(/^from-image__template__[0-9a-f]{8}$/),
      image: 'ghcr.io/acme/worker:1',
      args: 'python handler.py',
      disk: 15,
      ports: ['8000/http'],
      serverless: true,
      public: false,
    });

    const templates = async () =>
      (await alice<{ templates: unknown[] }>('GET', '/v2/templates')).body.templates;
    const before = (await templates()).length;
    // Refused by the endpoint's owner (an unknown network volume): the template made for it is gone again.
    const refused = await alice('POST', '/v2/serverless', { ...fromImage, networkVolumes: ['nope'] });
    expectProblem(refused, 404);
    expect((await templates()).length).toBe(before);
    // Neither a template nor an image, or both: 422 in v2's names, and nothing made.
    const none = await alice<{ errors: string[] }>('POST', '/v2/serverless', endpoint('x'));
    expectProblem(none, 422);
    expect(none.body.errors).toEqual([expect.stringMatching(/^templateId or image is required/)]);
    const both = await alice<{ errors: string[] }>('POST', '/v2/serverless', {
      ...endpoint('x'),
      templateId: created.body.templateId,
      image: 'alpine:3',
    });
    expectProblem(both, 422);
    expect(both.body.errors).toEqual([expect.stringMatching(/^image: not with templateId/)]);
    expect((await templates()).length).toBe(before);
  });
});
