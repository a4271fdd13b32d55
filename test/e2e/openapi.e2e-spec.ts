import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { userWithKey } from '../support/accounts.js';
import { openApiDocument, openApiText, schemaValidator, type OpenApiDoc } from '../support/openapi.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { sshPublicKey } from './clusters-fixtures.js';

/**
 * The gateway serves the committed OpenAPI descriptions without a key, byte for byte, and its real answers have
 * the shapes they describe (success bodies and problem+json errors).
 */
describe('OpenAPI descriptions served by the gateway', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let key: string;
  let base: string;

  beforeAll(async () => {
    db = await createTestDatabase('openapi', { apps: ['gateway'] });
    system = await startApps({ apps: ['gateway'], databaseUrl: db.url });
    base = system.url('gateway');
    key = (await userWithKey(db.url, 'alice')).key;
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it.each([
    ['v1', '1.0.0'],
    ['v2', '2.0.0'],
  ] as const)(
    'GET /%s/openapi.json answers the committed document (version %s), no key needed',
    async (iface, version) => {
      const response = await fetch(`${base}/${iface}/openapi.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('ratelimit')).toBeNull();
      const text = await response.text();
      expect(text).toBe(openApiText(iface));
      const document = JSON.parse(text) as OpenApiDoc;
      expect(document.openapi).toBe('3.1.0');
      expect(document.info.version).toBe(version);
    },
  );

  it('answers with the documented shapes: success bodies and problem+json errors', async () => {
    const document = openApiDocument('v1');
    const validate = schemaValidator(document);
    const responseSchema = (path: string, method: string, status: string) => {
      const content = document.paths[path][method].responses[status].content ?? {};
      return (content['application/json'] ?? content['application/problem+json']).schema;
    };
    const auth = { authorization: `Bearer ${key}` };

    const created = await fetch(`${base}/v1/user/ssh-keys`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: sshPublicKey('alice@laptop') }),
    });
    expect(created.status).toBe(201);
    expect(validate(responseSchema('/v1/user/ssh-keys', 'post', '201'), await created.json())).toEqual([]);

    const listed = await fetch(`${base}/v1/user/ssh-keys`, { headers: auth });
    expect(listed.status).toBe(200);
    const keys = (await listed.json()) as unknown[];
    expect(keys).toHaveLength(1);
    expect(validate(responseSchema('/v1/user/ssh-keys', 'get', '200'), keys)).toEqual([]);

    const invalid = await fetch(`${base}/v1/user/ssh-keys`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: 'not a key', extra: true }),
    });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(validate(responseSchema('/v1/user/ssh-keys', 'post', '422'), await invalid.json())).toEqual([]);

    const unauthenticated = await fetch(`${base}/v1/user/ssh-keys`);
    expect(unauthenticated.status).toBe(401);
    expect(validate(responseSchema('/v1/user/ssh-keys', 'get', '401'), await unauthenticated.json())).toEqual(
      [],
    );

    // The validator is not a rubber stamp: a body missing `detail` is not a problem document.
    expect(validate({ $ref: '#/components/schemas/Problem' }, { title: 'x', status: 400 })).not.toEqual([]);
  });
});
