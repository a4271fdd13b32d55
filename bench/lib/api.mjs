// Talking to the system under test the way its users do: the keys CLI (`npm run keys`) for users and keys, the
// REST API and GraphQL through the gateway.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../scripts/lib/infra.mjs';
import { baseEnv } from './processes.mjs';

const run = promisify(execFile);

/**
 * Runs the gateway's keys CLI against the system's database; it records its commands in the system's commands
 * stream (`natsUrl`, `natsPrefix`). Returns its trimmed stdout.
 */
export async function keysCli({ databaseUrl, natsUrl, natsPrefix }, args) {
  const { stdout } = await run(
    process.execPath,
    [join(ROOT, 'dist', 'apps', 'gateway', 'cli', 'keys.mjs'), ...args],
    { env: { ...baseEnv(), DATABASE_URL: databaseUrl, NATS_URL: natsUrl, NATS_PREFIX: natsPrefix } },
  );
  return stdout.trim();
}

/** A user (not exempt from the rate limiter) and a full-access key of it; `at`: the system's database and NATS. */
export async function createUser(at, name) {
  const userId = (await keysCli(at, ['user', 'create', name])).split('\t')[0];
  const { key } = JSON.parse(await keysCli(at, ['key', 'create', userId, '--json']));
  return { userId, key };
}

/** A user with an operator key (scope `operator`: the fleet routes), as `createUser` answers it. */
export async function createOperator(at, name) {
  const userId = (await keysCli(at, ['user', 'create', name])).split('\t')[0];
  const { key } = JSON.parse(await keysCli(at, ['key', 'create', userId, '--scope', 'operator', '--json']));
  return { userId, key };
}

/** A small client of the gateway at `baseUrl` with one API key. */
export function client(baseUrl, key) {
  async function request(method, path, body, { expect = [200, 201, 204] } = {}) {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!expect.includes(response.status)) {
      throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 500)}`);
    }
    return text ? JSON.parse(text) : null;
  }
  async function graphql(query) {
    const answer = await request('POST', '/graphql', { query });
    if (answer.errors) throw new Error(`GraphQL: ${answer.errors.map((e) => e.message).join('; ')}`);
    return answer.data;
  }
  return {
    baseUrl,
    key,
    request,
    get: (path, options) => request('GET', path, undefined, options),
    post: (path, body, options) => request('POST', path, body ?? {}, options),
    delete: (path, options) => request('DELETE', path, undefined, options),
    graphql,
  };
}

/** A serverless template running `imageName` (a local-runtime catalog image such as gpucp/echo-worker). */
export async function createTemplate(api, name, imageName) {
  return api.post('/v1/templates', { name, imageName, isServerless: true });
}

/**
 * Saves an endpoint through GraphQL (`saveEndpoint`); returns its id. `options`: workersMin, workersMax,
 * idleTimeout (s), flashBoot, scalerValue, type (QB by default; LB for a load-balancing endpoint), gpuIds (the GPU
 * tiers, comma-separated; AMPERE_16 by default), locations (region codes, comma-separated; any by default), env (an
 * object: its worker pods' environment).
 */
export async function saveEndpoint(api, { id, name, templateId, ...options }) {
  const fields = {
    workersMin: options.workersMin ?? 0,
    workersMax: options.workersMax ?? 0,
    idleTimeout: options.idleTimeout ?? 5,
    scalerValue: options.scalerValue ?? 4,
  };
  const flashBoot = options.flashBoot ? 'FLASHBOOT' : 'OFF';
  const env = Object.entries(options.env ?? {})
    .map(([key, value]) => `{ key: ${JSON.stringify(key)}, value: ${JSON.stringify(String(value))} }`)
    .join(', ');
  const data = await api.graphql(
    `mutation { saveEndpoint(input: { ${id ? `id: "${id}", ` : ''}name: "${name}", templateId: "${templateId}",
      gpuIds: "${options.gpuIds ?? 'AMPERE_16'}", workersMin: ${fields.workersMin}, workersMax: ${fields.workersMax},
      idleTimeout: ${fields.idleTimeout}, scalerValue: ${fields.scalerValue}, flashBootType: ${flashBoot}
      ${options.type ? `, type: "${options.type}"` : ''}
      ${options.locations ? `, locations: "${options.locations}"` : ''}
      ${env ? `, env: [${env}]` : ''} }) { id } }`,
  );
  return data.saveEndpoint.id;
}

/** The pods of an endpoint's workers, as `myself { endpoints { pods } }` lists them. */
export async function endpointPods(api, endpointId) {
  const data = await api.graphql('query { myself { endpoints { id pods { id desiredStatus status } } } }');
  return data.myself.endpoints.find((endpoint) => endpoint.id === endpointId)?.pods ?? [];
}

/** The endpoint's worker key (`aiKey`): what its worker pods get as RUNPOD_AI_API_KEY. */
export async function endpointAiKey(api, endpointId) {
  const data = await api.graphql('query { myself { endpoints { id aiKey } } }');
  const key = data.myself.endpoints.find((endpoint) => endpoint.id === endpointId)?.aiKey;
  if (!key) throw new Error(`endpoint ${endpointId} has no aiKey`);
  return key;
}
