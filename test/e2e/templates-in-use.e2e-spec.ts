import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TemplateV2View } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { errorCode, graphqlClient, type Graphql } from './graphql.e2e-helpers.js';
import { client, expectProblem, type Call } from './pods.e2e-helpers.js';

/** A template a serverless endpoint names cannot be deleted, on any surface, until the endpoint is gone. */
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
});
