import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { keysCli, type TestKey } from '../support/accounts.js';
import { openApiDocument, schemaValidator, type OpenApiDoc } from '../support/openapi.js';
import { sshPublicKey } from '../e2e/clusters-fixtures.js';
import { EXPECTED_STATUSES, generateCases, type FuzzCase, type FuzzTargets } from './fuzz/cases.js';
import { graphqlCases, judgeGraphql } from './fuzz/graphql-cases.js';
import { closeAgent, sendRaw, type RawReply } from './fuzz/http.js';
import { snapshot, stateChanges, type StateSnapshot } from './fuzz/state.js';
import { A100, startFaultSystem, type FaultSystem, REPLICATED } from './support/fault-system.js';
import { call, sleep, until } from './support/fault-calls.js';
import { recordVerdict } from './support/verdict.js';

/**
 * Malformed and hostile input over every REST route, generated from the committed OpenAPI descriptions
 * (test/faults/fuzz/cases.ts): no key or a broken one, user B on user A's resources, hostile path ids, invalid
 * query values, bodies breaking one documented constraint each, malformed JSON, deep nesting, oversized bodies,
 * unsupported content types. Every answer is a 4xx of the statuses the description documents for the operation,
 * in the interface's problem+json format; never a 5xx; and neither user's state changes.
 */
const CONCURRENCY = 8;
const MAX_LISTED = 40;

let fs: FaultSystem;
let userB: TestKey;
let targets: FuzzTargets;
let job: { endpointId: string; jobId: string; key: string };

interface Outcome {
  fuzz: FuzzCase;
  reply: RawReply;
  failure?: string;
}

beforeAll(async () => {
  fs = await startFaultSystem('fuzz', {
    apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle', 'queue-broker'],
    replicas: REPLICATED,
    endpoints: ['a'],
    appEnv: {
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      // A hostile request that reaches a long poll must not hold the suite up.
      gateway: { JOB_TAKE_LONG_POLL_MS: '300', JOB_STOP_LONG_POLL_MS: '300', JOB_STREAM_LONG_POLL_MS: '100' },
    },
  });
  await keysCli(fs.db.url, ['user', 'create', 'fuzz-b']);
  userB = JSON.parse(await keysCli(fs.db.url, ['key', 'create', 'fuzz-b', '--json'])) as TestKey;

  // User A's resources, one of each kind, for user B to aim at.
  const a = fs.user.key;
  const create = async (path: string, body: unknown): Promise<string> => {
    const reply = await call<{ id: string }>('POST', `${fs.gateway}${path}`, a, body, 60_000);
    if (reply.status !== 201 && reply.status !== 200) {
      throw new Error(`POST ${path} as A: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return reply.body.id;
  };
  const ids = {
    registry: await create('/v1/containerregistryauth', {
      name: 'fuzz-a',
      username: 'a',
      password: 'secret-a',
    }),
    template: await create('/v1/templates', { name: 'fuzz-a', imageName: 'alpine:3' }),
    volume: await create('/v1/networkvolumes', { name: 'fuzz-a', size: 10, dataCenterId: 'US-TX-3' }),
    sshKey: await create('/v1/user/ssh-keys', { publicKey: sshPublicKey('a@fuzz') }),
    pod: await create('/v1/pods', { name: 'fuzz-a', imageName: 'alpine:3', gpuTypeId: A100, gpuCount: 1 }),
    cluster: await create('/v2/clusters', {
      name: 'fuzz-a',
      type: 'TRAINING',
      compute: { gpuTypeId: A100, gpuCountPerPod: 1, podCount: 2 },
    }),
    job: await create(`/v2/${fs.endpoints.a}/run`, { input: { fuzz: true } }),
    team: await create('/v2/teams', { name: 'fuzz-a-team' }),
  };
  job = { endpointId: fs.endpoints.a, jobId: ids.job, key: a };

  const byParam: Record<string, string> = {
    podId: ids.pod,
    templateId: ids.template,
    networkVolumeId: ids.volume,
    containerRegistryAuthId: ids.registry,
    registryId: ids.registry,
    // The catalog is everyone's, so "B on A's id" has no A: an unknown GPU type (404) is what remains to test.
    gpuTypeId: 'fuzz-no-such-gpu',
    cpuTypeId: 'fuzz-no-such-cpu',
    dataCenterId: 'fuzz-no-such-dc',
    buildId: 'fuzz-build',
    endpointId: fs.endpoints.a,
    jobId: ids.job,
    workerId: 'fuzz-worker',
    apiKeyId: fs.user.id,
    // A's team, and A in it: B is no member, so the team does not exist for B (404).
    teamId: ids.team,
    userId: fs.user.userId,
    // A host of the fault system's fleet: the fleet routes are operators' (B is none: 403 whatever the host).
    hostId: 'faults-host-1',
  };
  targets = {
    idFor: (path, param) => {
      if (param === 'id') return path.startsWith('/v2/clusters') ? ids.cluster : ids.sshKey;
      const id = byParam[param];
      if (!id) throw new Error(`the fuzz test has no id for {${param}} of ${path}: add one`);
      return id;
    },
    baseBodies: {
      CreatePodDto: {
        name: 'fuzz-b',
        imageName: 'alpine:3',
        gpuTypeId: A100,
        gpuCount: 1,
        env: { FUZZ: '1' },
        ports: ['8888/http'],
        dataCenterIds: ['US-TX-3'],
        containerDiskInGb: 10,
      },
      CreatePodV2Dto: {
        name: 'fuzz-b',
        image: 'alpine:3',
        gpu: { id: A100, count: 1 },
        env: { FUZZ: '1' },
        ports: ['8888/http'],
        dataCenterIds: ['US-TX-3'],
        disk: 10,
      },
      UpdatePodDto: {
        name: 'fuzz-b2',
        imageName: 'alpine:3',
        env: { FUZZ: '2' },
        ports: ['8888/http'],
        containerDiskInGb: 10,
        volumeMountPath: '/workspace',
      },
      PodActionV2Dto: { action: 'stop' },
      UpdatePodV2Dto: { name: 'fuzz-b2', mounts: {} },
      CreateEndpointV2Dto: {
        name: 'fuzz-b',
        type: 'QUEUE',
        templateId: ids.template,
        gpu: { pools: ['AMPERE_16'], count: 1 },
        workers: { min: 0, max: 1 },
        scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
      },
      UpdateEndpointV2Dto: { workers: { max: 2 } },
      CreateEndpointV1Dto: {
        name: 'fuzz-b',
        templateId: ids.template,
        gpuTypeIds: ['AMPERE_16'],
        workersMin: 0,
        workersMax: 1,
        scalerType: 'QUEUE_DELAY',
        scalerValue: 4,
      },
      UpdateEndpointV1Dto: { workersMax: 2, flashboot: true },
      CreateTemplateDto: { name: 'fuzz-b', imageName: 'alpine:3', env: { FUZZ: '1' }, ports: ['22/tcp'] },
      UpdateTemplateDto: {
        name: 'fuzz-b2',
        imageName: 'alpine:3',
        ports: ['22/tcp'],
        containerRegistryAuthId: null,
      },
      CreateTemplateV2Dto: {
        name: 'fuzz-b',
        image: 'alpine:3',
        env: { FUZZ: '1' },
        ports: ['22/tcp'],
        disk: 10,
      },
      UpdateTemplateV2Dto: { name: 'fuzz-b2', image: 'alpine:3', args: 'x', registry: null },
      CreateRegistryAuthDto: { name: 'fuzz-b', username: 'b', password: 'secret-b' },
      CreateNetworkVolumeDto: { name: 'fuzz-b', size: 10, dataCenterId: 'US-TX-3' },
      CreateNetworkVolumeV2Dto: { name: 'fuzz-b', size: 10, dataCenter: 'US-TX-3' },
      UpdateNetworkVolumeDto: { name: 'fuzz-b2', size: 20 },
      SshKeySetDto: { keys: [sshPublicKey('b@fuzz')] },
      CreateSshKeyDto: { publicKey: sshPublicKey('b@fuzz'), name: 'fuzz' },
      CreateApiKeyDto: { name: 'fuzz', scope: 'read' },
      TeamDto: { name: 'fuzz-b-team' },
      AddMemberDto: { user: 'fuzz-b', role: 'basic' },
      MemberRoleDto: { role: 'dev' },
      UpdateUserDto: { disabled: false },
      SpendLimitDto: { monthlyLimit: 100 },
      QuotaInput: { cohort: 'fuzz', limits: [{ gpuTypeId: A100, gpus: 2, borrowingLimit: 1 }] },
      RegisterHostInput: {
        id: 'fuzz-host-1',
        dataCenterId: 'US-TX-3',
        gpuTypeId: A100,
        gpuCount: 8,
        publicIp: '192.0.2.77',
        portRange: [31000, 31099],
      },
      CordonHostInput: { reason: 'fuzz' },
      DrainHostInput: { reason: 'fuzz', deadlineSeconds: 60 },
      HostHealthInput: { healthy: false, reason: 'fuzz', gpuIndex: 0 },
      GpuFaultInput: { kind: 'XID', gpuIndex: 0, xid: 79 },
      UpdateClusterDto: { name: 'fuzz-b2' },
      CreateClusterDto: {
        name: 'fuzz-b',
        type: 'TRAINING',
        compute: { gpuTypeId: A100, gpuCountPerPod: 1, podCount: 2 },
        dataCenterIds: ['US-TX-3'],
        mounts: { persistent: { size: 10, path: '/data' } },
        env: { FUZZ: '1' },
        ports: ['8000/http'],
        disk: 10,
      },
      RunJobDto: { input: { prompt: 'fuzz' }, webhook: 'http://127.0.0.1:9/hook', policy: { ttl: 60_000 } },
    },
    crossUserBodies: {
      'POST /v1/pods': [
        { name: 'b-on-a', templateId: ids.template, gpuTypeId: A100 },
        { name: 'b-on-a', imageName: 'alpine:3', gpuTypeId: A100, networkVolumeId: ids.volume },
        { name: 'b-on-a', imageName: 'alpine:3', gpuTypeId: A100, containerRegistryAuthId: ids.registry },
      ],
      'POST /v1/templates': [
        { name: 'b-on-a', imageName: 'alpine:3', containerRegistryAuthId: ids.registry },
      ],
      'POST /v2/templates': [{ name: 'b-on-a', image: 'alpine:3', registry: ids.registry }],
      'POST /v2/clusters': [
        {
          name: 'b-on-a',
          type: 'TRAINING',
          compute: { gpuTypeId: A100, gpuCountPerPod: 1, podCount: 2 },
          mounts: { network: [{ volumeId: ids.volume, path: '/data' }] },
        },
      ],
    },
  };
}, 180_000);

afterAll(async () => {
  closeAgent();
  await fs?.close();
});

/** Two snapshots a second apart that agree: the creates above (cluster members, pods) have settled. */
async function settledSnapshot(users: Record<string, string>): Promise<StateSnapshot> {
  let previous = await snapshot(fs.gateway, fs.sql, users, job);
  let moving: string[] = [];
  const settled = await until(async () => {
    await sleep(1000);
    const next = await snapshot(fs.gateway, fs.sql, users, job);
    moving = stateChanges(previous, next);
    previous = next;
    return moving.length === 0 ? next : null;
  }, 30_000);
  if (!settled) throw new Error(`the state did not settle: ${moving.join('; ')}`);
  return settled;
}

function authorization(fuzz: FuzzCase): Record<string, string> {
  switch (fuzz.key) {
    case 'A':
      return { authorization: `Bearer ${fs.user.key}` };
    case 'B':
      return { authorization: `Bearer ${userB.key}` };
    case 'none':
      return {};
    case 'malformed':
      return { authorization: 'Basic Zm9vOmJhcg==' };
    case 'unknown':
      return { authorization: `Bearer cpk_${randomBytes(32).toString('base64url')}` };
  }
}

/** What is wrong with an answer, or undefined when it is what the description promises. */
function judge(
  document: OpenApiDoc,
  validate: ReturnType<typeof schemaValidator>,
  outcome: Outcome,
): string | undefined {
  const { fuzz, reply } = outcome;
  if (reply.status === 0) return `no answer (${reply.error ?? 'connection closed'})`;
  if (reply.status >= 500) return `${reply.status}`;
  if (reply.status < 400) return `accepted (${reply.status})`;
  if (!reply.contentType.startsWith('application/problem+json')) {
    return `not problem+json (${reply.contentType})`;
  }
  let body: unknown;
  try {
    body = JSON.parse(reply.text);
  } catch {
    return 'a problem body that is not JSON';
  }
  const errors = validate({ $ref: '#/components/schemas/Problem' }, body);
  if (errors.length) return `not the problem shape: ${errors.join('; ')}`;
  if ((body as { status: number }).status !== reply.status) {
    return 'problem status differs from the HTTP status';
  }
  const [method, path] = fuzz.operation.split(' ');
  const responses = document.paths[path][method.toLowerCase()].responses;
  if (!(String(reply.status) in responses)) return `undocumented status ${reply.status}`;
  if (!EXPECTED_STATUSES[fuzz.family].includes(reply.status)) return `unexpected status ${reply.status}`;
  return undefined;
}

async function runAll(cases: FuzzCase[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const lane = async () => {
    while (next < cases.length) {
      const fuzz = cases[next++];
      const reply = await sendRaw(fs.gateway, {
        method: fuzz.method,
        path: fuzz.path,
        headers: {
          ...authorization(fuzz),
          ...(fuzz.contentType ? { 'content-type': fuzz.contentType } : {}),
        },
        body: fuzz.body,
        declaredLength: fuzz.declaredLength,
      });
      outcomes.push({ fuzz, reply });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return outcomes;
}

describe('fuzzing every REST route from the OpenAPI descriptions', () => {
  it('answers every hostile request with a documented 4xx problem and changes nothing', async () => {
    const users = { A: fs.user.key, B: userB.key };
    const before = await settledSnapshot(users);

    const counts: Record<string, number> = { cases: 0, skippedValidMutations: 0 };
    const outcomes: Outcome[] = [];
    const started = Date.now();
    for (const iface of ['v1', 'v2'] as const) {
      const document = openApiDocument(iface);
      const validate = schemaValidator(document);
      const { cases, skippedValid } = generateCases(document, targets, validate);
      counts.skippedValidMutations += skippedValid;
      for (const outcome of await runAll(cases)) {
        outcome.failure = judge(document, validate, outcome);
        outcomes.push(outcome);
      }
    }
    const seconds = Math.round((Date.now() - started) / 1000);

    const after = await snapshot(fs.gateway, fs.sql, users, job);
    const changes = stateChanges(before, after);

    counts.cases = outcomes.length;
    for (const { fuzz, reply } of outcomes) {
      counts[`family.${fuzz.family}`] = (counts[`family.${fuzz.family}`] ?? 0) + 1;
      const bucket = reply.status === 0 ? 'noAnswer' : reply.status >= 500 ? '5xx' : `${reply.status}`;
      counts[`status.${bucket}`] = (counts[`status.${bucket}`] ?? 0) + 1;
    }
    const failures = outcomes.filter((o) => o.failure);
    counts['5xx'] = outcomes.filter((o) => o.reply.status >= 500).length;
    counts.failures = failures.length;
    counts.stateChanges = changes.length;
    counts.seconds = seconds;

    recordVerdict({
      name: 'fuzz: hostile input on every route',
      pass: !failures.length && !changes.length,
      counts,
    });

    // Grouped by what went wrong and which mutation caused it, with one operation as an example.
    const groups = new Map<string, { count: number; example: string }>();
    for (const { fuzz, reply, failure } of failures) {
      const kind = (failure ?? '').replace(/\(.*$|:.*$/, '').trim();
      const group = `${kind} ← ${fuzz.family}: ${fuzz.what.replace(/"[^"]*"/g, '…').slice(0, 80)}`;
      const entry = groups.get(group) ?? {
        count: 0,
        example: `${fuzz.operation}: ${reply.text.slice(0, 160)}`,
      };
      entry.count += 1;
      groups.set(group, entry);
    }
    const listed = [...groups.entries()]
      .sort((a, b) => b[1].count - a[1].count)
      .slice(0, MAX_LISTED)
      .map(([group, { count, example }]) => `${count}× ${group} (e.g. ${example})`);
    expect({ failures: failures.length, first: listed }).toEqual({ failures: 0, first: [] });
    expect(changes).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(500);
  });

  it('refuses every hostile GraphQL document with a 4xx (or GraphQL errors) and changes nothing', async () => {
    const users = { A: fs.user.key, B: userB.key };
    const before = await settledSnapshot(users);
    const cases = graphqlCases(job.endpointId);
    const failures: string[] = [];
    const counts: Record<string, number> = { cases: cases.length };
    for (const fuzz of cases) {
      const reply = await sendRaw(fs.gateway, {
        method: 'POST',
        path: '/graphql',
        headers: {
          authorization: `Bearer ${fs.user.key}`,
          'content-type': fuzz.contentType ?? 'application/json',
        },
        body: Buffer.from(fuzz.body),
      });
      const bucket = reply.status === 0 ? 'noAnswer' : reply.status >= 500 ? '5xx' : `${reply.status}`;
      counts[`status.${bucket}`] = (counts[`status.${bucket}`] ?? 0) + 1;
      const failure = judgeGraphql(reply);
      if (failure) failures.push(`${fuzz.what}: ${failure} (${reply.text.slice(0, 160)})`);
    }
    const changes = stateChanges(before, await snapshot(fs.gateway, fs.sql, users, job));
    counts['5xx'] = counts['status.5xx'] ?? 0;
    counts.failures = failures.length;
    counts.stateChanges = changes.length;
    recordVerdict({
      name: 'fuzz: hostile GraphQL documents',
      pass: !failures.length && !changes.length,
      counts,
    });
    expect(failures).toEqual([]);
    expect(changes).toEqual([]);
  });
});
