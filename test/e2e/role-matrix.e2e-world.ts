import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { TEAM_ROLES, type TeamRole, type TeamView } from '@app/contracts';
import { userWithKey, type TestKey } from '../support/accounts.js';
import { ROOT } from '../support/paths.js';
import { SchemaWrites } from '../support/schema-writes.js';
import { startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { sshPublicKey } from './clusters-fixtures.js';
import { bodyOf, type Ids, type Route } from './role-matrix.e2e-helpers.js';

/** What test/e2e/role-matrix.e2e-spec.ts runs against (not a test file itself). */

export interface Reply {
  status: number;
  text: string;
  json: unknown;
}

export interface World {
  sdl: string;
  teamA: TeamView;
  /** Team A's key of each role's member. */
  teamKeys: Record<TeamRole, string>;
  /** The admin's key for their own account (where they are owner). */
  personalKey: string;
  bKey: string;
  aIds: Ids;
  bIds: Ids;
  /** Every id of team B's (its resources, its team, its key), for "no answer names one". */
  bIdList: string[];
  send(key: string | undefined, method: string, path: string, body?: unknown): Promise<Reply>;
  graphql(key: string, query: string): Promise<Reply>;
  bodyOf(route: Route): unknown;
  /** Each app schema's table digests (SchemaWrites). */
  snapshot(): Promise<Map<string, string>[]>;
  /** `schema.table` of every table changed since `before`. */
  changedSince(before: Map<string, string>[]): Promise<string[]>;
  close(): Promise<void>;
}

/** Longest a call of the matrix may take: a route that waits (a long poll, a stream) is a finding. */
const CALL_TIMEOUT_MS = 10_000;

async function request(url: string, key: string | undefined, method: string, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    return { status: 0, text: `no answer within ${CALL_TIMEOUT_MS} ms: ${String(error)}`, json: undefined };
  }
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

function ok<T>(reply: Reply, what: string): T {
  if (reply.status >= 300 || (reply.json as { errors?: unknown })?.errors) {
    throw new Error(`${what}: ${reply.status} ${reply.text}`);
  }
  return reply.json as T;
}

/**
 * Starts all five apps (simulated runtime, no autoscaler so nothing moves by itself, no rate limits so a request
 * writes no counter), team A with one member per role and a team key each, team B with one resource of every kind.
 */
export async function startWorld(
  started: (parts: { db: TestDatabase; system: RunningSystem }) => void,
): Promise<World> {
  const db = await createTestDatabase('role_matrix');
  const system = await startApps({
    databaseUrl: db.url,
    appEnv: {
      gateway: {
        RATE_LIMITS_ENABLED: 'false',
        // An allowed long poll answers at once (a job-take of an endpoint with no job, a stream with no chunk).
        JOB_TAKE_LONG_POLL_MS: '0',
        JOB_STOP_LONG_POLL_MS: '0',
        JOB_STREAM_LONG_POLL_MS: '0',
        LB_COLD_START_WAIT_MS: '200',
      },
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '50', SIM_START_MS: '50' },
      'endpoint-autoscaler': { AUTOSCALER_ENABLED: 'false' },
      // Its metrics sampler writes rollups on a clock: not within the test, so a refused call's check sees only calls.
      'queue-broker': { METRICS_SAMPLE_MS: '3600000' },
    },
  });
  started({ db, system });
  const base = system.url('gateway');
  const send = (key: string | undefined, method: string, path: string, body?: unknown) =>
    request(`${base}${path}`, key, method, body);
  const graphql = (key: string, query: string) => send(key, 'POST', '/graphql', { query });

  const users = await Promise.all(
    [...TEAM_ROLES.map((r) => `a-${r}`), 'b-owner'].map((name) => userWithKey(db.url, name)),
  );
  const byName = Object.fromEntries(
    users.map((u, i): [string, TestKey] => [i < TEAM_ROLES.length ? TEAM_ROLES[i] : 'b', u]),
  ) as Record<TeamRole | 'b', TestKey>;
  const teamA = ok<TeamView>(await send(byName.owner.key, 'POST', '/v2/teams', { name: 'team-a' }), 'team A');
  for (const role of TEAM_ROLES.filter((r) => r !== 'owner')) {
    ok(
      await send(byName.owner.key, 'POST', `/v2/teams/${teamA.id}/members`, { user: `a-${role}`, role }),
      role,
    );
  }
  const teamKey = async (personal: string, teamId: string) =>
    ok<{ id: string; key: string }>(
      await send(personal, 'POST', '/v2/account/api-keys', { name: 'team', scope: 'full', teamId }),
      'team key',
    );
  const teamKeys = Object.fromEntries(
    await Promise.all(TEAM_ROLES.map(async (r) => [r, (await teamKey(byName[r].key, teamA.id)).key])),
  ) as Record<TeamRole, string>;
  const teamB = ok<TeamView>(await send(byName.b.key, 'POST', '/v2/teams', { name: 'team-b' }), 'team B');
  const bKey = await teamKey(byName.b.key, teamB.id);

  /** One resource of every kind, made with the team's key. */
  const resources = async (key: string, team: TeamView, userId: string, apiKeyId: string): Promise<Ids> => {
    const p = team.name;
    const rest = async (path: string, body: unknown) =>
      ok<{ id: string }>(await send(key, 'POST', path, body), `${p} ${path}`).id;
    const [dataCenter] = ok<{ id: string }[]>(
      await send(key, 'GET', '/v2/catalog/datacenters'),
      'data centers',
    ) as { id: string }[];
    const templateId = await rest('/v1/templates', {
      name: `${p}-echo`,
      imageName: 'gpucp/echo-worker',
      isServerless: true,
    });
    const endpoint = async (name: string, type: string) => {
      const saved = ok<{ data: { saveEndpoint: { id: string } } }>(
        await graphql(
          key,
          `mutation { saveEndpoint(input: { name: "${name}", templateId: "${templateId}", ` +
            `gpuIds: "AMPERE_16", type: "${type}" }) { id } }`,
        ),
        `${p} ${type} endpoint`,
      );
      return saved.data.saveEndpoint.id;
    };
    const endpointId = await endpoint(`${p}-qb`, 'QB');
    return {
      podId: await rest('/v2/pods', {
        name: `${p}-pod`,
        image: 'runpod/base:0.6.2',
        gpu: { id: 'NVIDIA RTX A4000', count: 1 },
      }),
      clusterId: await rest('/v2/clusters', {
        name: `${p}-cluster`,
        type: 'TRAINING',
        compute: { gpuTypeId: 'NVIDIA H100 80GB HBM3', gpuCountPerPod: 1, podCount: 2 },
      }),
      endpointId,
      lbEndpointId: await endpoint(`${p}-lb`, 'LB'),
      templateId,
      registryId: await rest('/v1/containerregistryauth', { name: `${p}-reg`, username: 'u', password: 'p' }),
      networkVolumeId: await rest('/v2/network-volumes', {
        name: `${p}-vol`,
        size: 10,
        dataCenter: dataCenter.id,
      }),
      teamId: team.id,
      userId,
      jobId: await rest(`/v2/${endpointId}/run`, { input: { n: 1 } }),
      sshKeyId: await rest('/v1/user/ssh-keys', { publicKey: sshPublicKey(`${p}@example`) }),
      apiKeyId,
    };
  };
  const aIds = await resources(teamKeys.owner, teamA, byName.owner.userId, 'key_none');
  const bIds = await resources(bKey.key, teamB, byName.b.userId, bKey.id);

  const sdlReply = await send(undefined, 'GET', '/graphql/schema.graphql');
  if (sdlReply.status !== 200) throw new Error(`SDL: ${sdlReply.status}`);

  const data = new DataSource({ type: 'postgres', url: db.url, poolSize: 2 });
  await data.initialize();
  const schemas = (
    await data.query<{ name: string }[]>(
      `SELECT schema_name AS name FROM information_schema.schemata
       WHERE schema_name NOT IN ('public', 'information_schema') AND schema_name NOT LIKE 'pg\\_%'`,
    )
  ).map((row) => row.name);
  const writes = schemas.map((schema) => new SchemaWrites(data, schema));
  const snapshot = () => Promise.all(writes.map((w) => w.digests()));
  // What setup started settles first (pods and cluster members come up, job events are folded into metrics): from
  // then on a schema changes only when a call changes it.
  let last = JSON.stringify((await snapshot()).map((m) => [...m]));
  for (let settled = 0, tries = 0; settled < 2 && tries < 40; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = JSON.stringify((await snapshot()).map((m) => [...m]));
    settled = now === last ? settled + 1 : 0;
    last = now;
  }

  return {
    sdl: sdlReply.text,
    teamA,
    teamKeys,
    personalKey: byName.admin.key,
    bKey: bKey.key,
    aIds,
    bIds,
    bIdList: [...Object.values(bIds as unknown as Record<string, string>), byName.b.userId],
    send,
    graphql,
    bodyOf: (route) => bodyOf(route, { userName: 'a-basic' }),
    snapshot,
    // A refusal is recorded, which is no change: its processed row (left out by SchemaWrites), its audit entry
    // and the outbox event that carries it to the gateway (docs/adr/0035-audit-trail.md).
    changedSince: async (before) =>
      (await Promise.all(writes.map((w, i) => w.changedSince(before[i]))))
        .flatMap((tables, i) => tables.map((table) => `${schemas[i]}.${table}`))
        .filter((table) => !/\.outbox$/.test(table) && table !== 'gateway.audit_entries'),
    close: () => data.destroy(),
  };
}

/** The refusal of a role: 403 whose detail (REST) or error (GraphQL) names the team and the role. */
export function isRoleRefusal(reply: Reply, role: TeamRole, team: string, graphql: boolean): boolean {
  const named = new RegExp(`your role in team ${team} is ${role}\\b`);
  if (graphql) {
    const errors = (reply.json as { errors?: { message: string }[] } | undefined)?.errors ?? [];
    return errors.some((e) => named.test(e.message));
  }
  return reply.status === 403 && named.test(String((reply.json as { detail?: string })?.detail));
}

/** The console's page and every file it loads, public. */
export async function consoleFiles(w: World): Promise<string[]> {
  const page = await w.send(undefined, 'GET', '/console/');
  const assets = [...page.text.matchAll(/(?:src|href)="(\/console\/[^"]+)"/g)].map((m) => m[1]);
  if (!assets.length) throw new Error(`the console page loads no file: ${page.status} ${page.text}`);
  return ['/console/', ...assets];
}

/** Every API path the console's source calls (`/v2/pods/${id}` → `/v2/pods/{}`), without its query. */
export function consoleApiPaths(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name)) files.push(path);
    }
  };
  walk(join(ROOT, 'apps/console/src'));
  const paths = files.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/['`](\/(?:v1|v2|graphql|lb)\b[^'`]*)['`]/g)].map((m) =>
      m[1].replace(/\$\{[^}]*\}/g, '{}').replace(/\?.*$/, ''),
    ),
  );
  return [...new Set(paths)].sort();
}

/** Whether a console path (`{}` a parameter) is the route's, segment by segment. */
export function matchesRoute(path: string, route: Route): boolean {
  const a = path.split('/');
  const b = route.path.split('/');
  return a.length === b.length && a.every((s, i) => s === b[i] || s === '{}' || /^\{\w+\}$/.test(b[i]));
}
