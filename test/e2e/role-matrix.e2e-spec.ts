import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TEAM_ROLES } from '@app/contracts';
import { eachLimited } from '../support/each-limited.js';
import { deleteStreams, type RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import {
  classifyRest,
  fillPath,
  listRoutes,
  graphqlOperations,
  mayDo,
  namesResource,
  NO_IDS,
  restRoutes,
  type Classified,
  type Ids,
} from './role-matrix.e2e-helpers.js';
import {
  consoleApiPaths,
  consoleFiles,
  isRoleRefusal,
  matchesRoute,
  startWorld,
  type Reply,
  type World,
} from './role-matrix.e2e-world.js';

/** One call of the matrix: a REST route, a GraphQL field or an LB route, run with a key on an account's ids. */
interface Case {
  label: string;
  /** Undefined: the test does not place it, which fails the test. */
  classified?: Classified;
  /** Names one of the account's resources by id (asked with team B's ids in the cross-team check). */
  namesResource: boolean;
  graphql: boolean;
  run(key: string, ids: Ids): Promise<Reply>;
  /**
   * Asked of team A with its own ids (a read; a worker route, which on an unknown endpoint holds its error 5 s),
   * else with ids that name nothing (a write the role may do answers 404 and changes nothing).
   */
  ownIds: boolean;
  /** What the call sends (path, body, document) for these ids. */
  request(ids: Ids): string;
}

/**
 * Issue 52's acceptance: every route of every surface (REST v1 and v2 from the committed OpenAPI documents, every
 * GraphQL query, mutation and `myself` field from the served SDL, the queue, job-read and worker routes, the LB
 * route, the console) × every team role, against all five apps: what ROLE_GRANTS allows answers, the rest is 403
 * naming the role and changes nothing in any app's schema; and no key of team A reads or changes anything of team
 * B's, nor lists one of its ids.
 */
describe('every route × every role, and nothing of another team', () => {
  let w: World;
  let db: TestDatabase | undefined;
  let system: RunningSystem | undefined;
  let cases: Case[];

  beforeAll(async () => {
    w = await startWorld((started) => ({ db, system } = started));
    const rest: Case[] = restRoutes().map((route) => ({
      label: `${route.method} ${route.path}`,
      classified: classifyRest(route),
      namesResource: namesResource(route.path),
      graphql: false,
      ownIds: route.method === 'GET' || route.path.includes('{workerId}'),
      run: (key, ids) => w.send(key, route.method, fillPath(route.path, ids), w.bodyOf(route)),
      request: (ids) => `${fillPath(route.path, ids)} ${JSON.stringify(w.bodyOf(route))}`,
    }));
    const graphql: Case[] = graphqlOperations(w.sdl).map((op) => ({
      label: `GraphQL ${op.name}`,
      classified: op.classified,
      namesResource: op.namesResource,
      graphql: true,
      ownIds: op.classified?.access === 'read',
      run: (key, ids) => w.graphql(key, op.document(ids)),
      request: (ids) => op.document(ids),
    }));
    // The LB route takes any method and path: a read and a write of the endpoint's workers.
    const lb: Case[] = (['GET', 'POST'] as const).map((method) => ({
      label: `${method} /lb/{endpointId}/…`,
      classified: { resource: 'requests', access: method === 'GET' ? 'read' : 'write' },
      namesResource: true,
      graphql: false,
      ownIds: method === 'GET',
      run: (key, ids) =>
        w.send(key, method, `/lb/${ids.lbEndpointId}/echo`, method === 'GET' ? undefined : {}),
      request: (ids) => `/lb/${ids.lbEndpointId}/echo`,
    }));
    cases = [...rest, ...graphql, ...lb];
  });

  afterAll(async () => {
    await w?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('places every route of every surface: a new route fails here until it is classified', () => {
    expect(cases.filter((c) => !c.classified).map((c) => c.label)).toEqual([]);
    // Every surface is there: the queue, job-read and worker routes, GraphQL's reads and writes, the LB route.
    const labels = cases.map((c) => c.label);
    for (const expected of [
      'POST /v2/{endpointId}/run',
      'GET /v2/{endpointId}/status/{jobId}',
      'GET /v2/{endpointId}/status-sync/{jobId}',
      'GET /v2/{endpointId}/job-take/{workerId}',
      'POST /v2/{endpointId}/purge-queue',
      'GraphQL Query.myself',
      'GraphQL Mutation.podFindAndDeployOnDemand',
      'GET /lb/{endpointId}/…',
    ]) {
      expect(labels).toContain(expected);
    }
  });

  it('refuses what a role may not do with 403 naming the role, and nothing changes in any schema', async () => {
    const problems: string[] = [];
    for (const role of TEAM_ROLES) {
      const refused = cases.filter((c) => !mayDo(role, c.classified!));
      const before = await w.snapshot();
      await eachLimited(refused, 6, async (c) => {
        // Reads on the team's own resources, writes on ids that name nothing: the role check comes first.
        const reply = await c.run(w.teamKeys[role], c.ownIds ? w.aIds : NO_IDS);
        const refusal = c.classified!.operator
          ? reply.status === 403 && /operators'/.test(reply.text)
          : isRoleRefusal(reply, role, w.teamA.name, c.graphql);
        if (!refusal) {
          problems.push(`${role} ${c.label}: ${reply.status} ${reply.text.slice(0, 200)}`);
        }
      });
      const changed = await w.changedSince(before);
      if (changed.length) problems.push(`${role}: refused calls changed ${changed.join(', ')}`);
    }
    expect(problems).toEqual([]);
  });

  it("no key of team A (nor a member's own key) reaches team B's resources: 403 or 404, nothing changes", async () => {
    const foreign = cases.filter((c) => c.namesResource && c.classified!.resource !== 'catalog');
    const keys: [string, string][] = [
      ...TEAM_ROLES.map((role): [string, string] => [role, w.teamKeys[role]]),
      ['personal key of an A member', w.personalKey],
    ];
    const problems: string[] = [];
    const before = await w.snapshot();
    const calls = keys.flatMap(([who, key]) => foreign.map((c) => ({ who, key, c })));
    await eachLimited(calls, 16, async ({ who, key, c }) => {
      const reply = await c.run(key, w.bIds);
      if (!refusedForeign(reply, c.graphql)) {
        problems.push(`${who} ${c.label}: ${reply.status} ${reply.text.slice(0, 200)}`);
      }
      // The answer may name the id asked for ("pod … does not exist"), none other of team B's.
      const asked = c.request(w.bIds);
      for (const id of w.bIdList) {
        if (!asked.includes(id) && reply.text.includes(id)) {
          problems.push(`${who} ${c.label}: the answer names ${id}`);
        }
      }
    });
    const changed = await w.changedSince(before);
    expect({ problems, changed }).toEqual({ problems: [], changed: [] });
  });

  it("no list answered to a key of team A names one of team B's ids", async () => {
    // Every list route of the documents, once plain, once with each `include…` flag, once filtered by one of
    // team B's ids where it takes one (`/v2/billing/pods?podId=…`: that id may be echoed, no other).
    const lists = listRoutes(w.bIds);
    const everything =
      'query { myself { id pubKey pods { id } endpoints { id templateId } networkVolumes { id } ' +
      'containerRegistryCreds { id } } }';
    // The check can see an id: team B's own key lists its pod.
    expect((await w.send(w.bKey, 'GET', '/v2/pods')).text).toContain(w.bIds.podId);
    const problems: string[] = [];
    for (const key of [...Object.values(w.teamKeys), w.personalKey]) {
      await eachLimited([...lists, everything], 6, async (list) => {
        const reply = list.startsWith('query') ? await w.graphql(key, list) : await w.send(key, 'GET', list);
        if (list.startsWith('/v2/audit')) {
          // Team A's trail records its members' refused attempts on B's ids (the ids they sent): every entry must
          // be team A's own (or a member's own account's), never one of team B's.
          const entries = (JSON.parse(reply.text) as { entries?: { accountId: string }[] }).entries ?? [];
          for (const e of entries) {
            if ([w.bIds.teamId, w.bIds.userId].includes(e.accountId)) {
              problems.push(`${list} shows B's entry`);
            }
          }
          return;
        }
        for (const id of w.bIdList) {
          if (!list.includes(id) && reply.text.includes(id)) problems.push(`${list} names ${id}`);
        }
      });
    }
    expect(problems).toEqual([]);
  });

  it('lets every role do what ROLE_GRANTS allows: no 401 or 403 (the route answers for itself)', async () => {
    const problems: string[] = [];
    for (const role of TEAM_ROLES) {
      await eachLimited(
        cases.filter((c) => mayDo(role, c.classified!)),
        6,
        async (c) => {
          const reply = await c.run(w.teamKeys[role], c.ownIds ? w.aIds : NO_IDS);
          if (!allowed(reply, c.graphql)) {
            problems.push(`${role} ${c.label}: ${reply.status} ${reply.text.slice(0, 200)}`);
          }
        },
      );
    }
    expect(problems).toEqual([]);
  });

  it("a team's endpoint runs on the team's workers' key: held by the team, it takes the endpoint's jobs", async () => {
    const listed = await w.graphql(w.teamKeys.owner, 'query { myself { endpoints { id aiKey } } }');
    const endpoints = (listed.json as { data: { myself: { endpoints: { id: string; aiKey: string }[] } } })
      .data.myself.endpoints;
    const workersKey = endpoints.find((e) => e.id === w.aIds.endpointId)?.aiKey;
    expect(workersKey).toEqual(expect.any(String));
    const run = await w.send(w.teamKeys.basic, 'POST', `/v2/${w.aIds.endpointId}/run`, { input: { n: 2 } });
    const jobId = (run.json as { id: string }).id;
    // The matrix's worker routes took the earlier jobs: this worker takes the new one.
    const take = await w.send(workersKey, 'GET', `/v2/${w.aIds.endpointId}/job-take/worker-1`);
    expect({ status: take.status, job: take.text.includes(jobId) }).toEqual({ status: 200, job: true });
    // Only its own endpoint's.
    expect((await w.send(workersKey, 'GET', `/v2/${w.bIds.endpointId}/job-take/worker-1`)).status).toBe(403);
  });

  it('serves the console without a key, and the console calls only routes of the matrix', async () => {
    for (const file of await consoleFiles(w)) {
      const reply = await w.send(undefined, 'GET', file);
      expect({ file, status: reply.status }).toEqual({ file, status: 200 });
    }
    // The load-balancing proxy (its request tester) is in the matrix as `/lb/{endpointId}/…` (the cases above).
    const routes = [...restRoutes(), { method: 'POST', path: '/lb/{endpointId}/{path}' }];
    const unknown = consoleApiPaths().filter((path) => !routes.some((route) => matchesRoute(path, route)));
    expect(unknown).toEqual([]);
  });
});

/** Another team's resource: refused (403) or not found (404), REST; an error or nothing, GraphQL. */
function refusedForeign(reply: Reply, graphql: boolean): boolean {
  if (!graphql) return reply.status === 403 || reply.status === 404;
  const body = reply.json as { data?: Record<string, unknown> | null; errors?: unknown[] } | undefined;
  if (body?.errors?.length) return true;
  // `pod(input)` of an id the caller does not own answers null, as for an unknown id.
  return !!body?.data && Object.values(body.data).every((value) => value === null);
}

/** Not refused by the key or the role; the route's own 2xx/4xx (or 501 not offered, 503 no LB worker) is fine. */
function allowed(reply: Reply, graphql: boolean): boolean {
  if (graphql) {
    const errors = (reply.json as { errors?: { message: string; extensions?: { code?: string } }[] })?.errors;
    return !(errors ?? []).some(
      (e) =>
        ['FORBIDDEN', 'UNAUTHENTICATED', 'INTERNAL_SERVER_ERROR'].includes(e.extensions?.code ?? '') ||
        /your role in team/.test(e.message),
    );
  }
  return ![401, 403, 500].includes(reply.status);
}
