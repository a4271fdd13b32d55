import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { userWithKey, type TestKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: {
    data?: unknown;
    errors?: { message: string; extensions?: { code?: string; limit?: string; [key: string]: unknown } }[];
  };
  ms: number;
}

/** Every field of an endpoint: costs 56.75 (graphql-limits.ts: scalar 1, object 2, children weigh 1.5 times). */
const ENDPOINT_FIELDS =
  'fragment E on Endpoint { id name gpuIds gpuCount templateId type idleTimeout locations flashBootType ' +
  'scalerType scalerValue workersMin workersMax workersStandby networkVolumeId allowedCudaVersions aiKey userId ' +
  'version createdAt networkVolume { id dataCenterId } env { key value } pods { id desiredStatus status } }';
/** The fragment spread k times (distinct spreads of one fragment are merged cheaply by validation, not aliases). */
const everyField = (k: number) =>
  `query { myself { endpoints { ${Array.from({ length: k }, () => '...E').join(' ')} } } } ${ENDPOINT_FIELDS}`;
/** Costs 5818.4 (> GRAPHQL_MAX_COST 5000) in about 120 tokens. */
const TOO_COSTLY = everyField(30);
/** Costs 3299.3: 33 units of GRAPHQL_COST_PER_UNIT 100. */
const COSTLY = everyField(17);
const COSTLY_UNITS = 33;
const GRAPHQL_MINUTE_QUOTA = 40;

/** A stack frame as V8 writes it, or Apollo's `stacktrace` extension. */
const STACK = /stacktrace|\n\s+at |\bat [\w.<>]+ \(|node:internal|\.js:\d+:\d+/;

/**
 * POST /graphql as the edge serves it to anyone (docs/adr/0014-edge-hardening.md): documents past the limits are
 * refused fast with HTTP 400 and a GraphQL error, introspection is off, no error carries a stack trace (even with
 * NODE_ENV=development, which this system runs), and an operation counts rate-limit units by its cost.
 */
describe('GraphQL at the edge: limits, introspection, errors, cost-weighted rate limit', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: TestKey;

  async function post(body: unknown, key: string | undefined = alice.key, raw = false): Promise<Answer> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers.authorization = `Bearer ${key}`;
    const started = performance.now();
    const response = await fetch(`${system.url('gateway')}/graphql`, {
      method: 'POST',
      headers,
      body: raw ? String(body) : JSON.stringify(body),
    });
    const text = await response.text();
    const ms = performance.now() - started;
    let parsed: Answer['body'];
    try {
      parsed = JSON.parse(text) as Answer['body'];
    } catch {
      parsed = {};
    }
    return { status: response.status, headers: response.headers, text, body: parsed, ms };
  }

  const query = (text: string, key?: string) => post({ query: text }, key);

  function expectRefused(answer: Answer, code: string, limit: string, message: RegExp): void {
    expect({ status: answer.status, errors: answer.body.errors }).toEqual({
      status: 400,
      errors: [
        expect.objectContaining({
          message: expect.stringMatching(message),
          extensions: expect.objectContaining({ code, limit }),
        }),
      ],
    });
    expect(answer.body.data).toBeUndefined();
  }

  beforeAll(async () => {
    db = await createTestDatabase('graphql_edge', { apps: ['gateway', 'endpoint-autoscaler'] });
    system = await startApps({
      apps: ['gateway', 'endpoint-autoscaler'],
      databaseUrl: db.url,
      env: { NODE_ENV: 'development' },
      appEnv: {
        gateway: { RATE_LIMIT_GRAPHQL: `${GRAPHQL_MINUTE_QUOTA},100000,1000000` },
        'endpoint-autoscaler': { AUTOSCALER_ENABLED: 'false' },
      },
    });
    alice = await userWithKey(db.url, 'alice');
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('answers an ordinary query', async () => {
    const answer = await query('query { myself { id endpoints { id aiKey } } }');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { myself: { id: alice.userId, endpoints: [] } } });
  });

  it('refuses an alias bomb of 2000 aliases quickly: 400, a GraphQL error, nothing run', async () => {
    const bomb = Array.from({ length: 2000 }, (_, i) => `a${i}: myself { id }`).join(' ');
    const answer = await query(`query { ${bomb} }`);
    expectRefused(answer, 'GRAPHQL_PARSE_FAILED', 'tokens', /^query refused: Token limit of 2000 exceeded/);
    expect(answer.ms).toBeLessThan(1500);
  });

  it('allows 15 aliases and refuses the 16th', async () => {
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: myself { id }`).join(' ');
    expect((await query(`query { ${aliases(15)} }`)).status).toBe(200);
    expectRefused(
      await query(`query { ${aliases(16)} }`),
      'GRAPHQL_VALIDATION_FAILED',
      'aliases',
      /^query refused: Aliases limit of 15 exceeded, found 16\.$/,
    );
  });

  it('refuses a document deeper than 8 (fragment spreads add levels)', async () => {
    const chain = Array.from({ length: 3 }, (_, i) => `fragment F${i} on User { ...F${i + 1} }`).join(' ');
    const answer = await query(`query { myself { ...F0 } } ${chain} fragment F3 on User { id }`);
    expectRefused(
      answer,
      'GRAPHQL_VALIDATION_FAILED',
      'depth',
      /^query refused: Query depth limit of 8 exceeded/,
    );
  });

  it('refuses a query costing more than 5000', async () => {
    const answer = await query(TOO_COSTLY);
    expectRefused(
      answer,
      'GRAPHQL_VALIDATION_FAILED',
      'cost',
      /^query refused: Query Cost limit of 5000 exceeded/,
    );
  });

  it('refuses more than 50 directives', async () => {
    const fields = Array.from({ length: 51 }, () => 'id @include(if: true)').join(' ');
    const answer = await query(`query { myself { ${fields} } }`);
    expectRefused(answer, 'GRAPHQL_VALIDATION_FAILED', 'directives', /Directives limit of 50 exceeded/);
  });

  it('refuses introspection and serves no GraphiQL page, and suggests no field names', async () => {
    for (const text of ['{ __schema { types { name } } }', '{ __type(name: "User") { fields { name } } }']) {
      const answer = await query(text);
      expect(answer.status).toBe(400);
      expect(answer.body.errors?.[0]).toEqual(
        expect.objectContaining({
          message: expect.stringMatching(/introspection/i),
          extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }),
        }),
      );
    }
    const page = await fetch(`${system.url('gateway')}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type') ?? '').not.toMatch(/html/);
    expect(await page.text()).not.toMatch(/graphiql/i);

    const typo = await query('query { myself { endpoint { id } } }');
    expect(typo.status).toBe(400);
    expect(typo.body.errors?.[0].message).toBe('Cannot query field "endpoint" on type "User".');
  });

  it('puts no stack trace in any GraphQL error, with NODE_ENV=development', async () => {
    const answers = [
      await query('query { myself { nope } }'), // validation
      await post('{"query": "query { myself {', alice.key, true), // malformed JSON
      await query('query { myself { id } }', 'cpk_not-a-key'), // 401 from the guard
      await query('mutation { deleteEndpoint(id: "nosuchendpoint") }'), // the owner's NOT_FOUND
      await query('mutation { saveEndpoint(input: { name: "x", templateId: "t", gpuIds: "NOPE" }) { id } }'),
    ];
    for (const answer of answers) {
      expect(answer.status).toBeGreaterThanOrEqual(200);
      expect(answer.text).not.toMatch(STACK);
    }
    expect(answers.map((a) => a.status)).toEqual([400, 400, 401, 200, 200]);
  });

  it('puts no stack trace in any REST error, with NODE_ENV=development', async () => {
    const base = system.url('gateway');
    const bearer = { authorization: `Bearer ${alice.key}` };
    const replies = await Promise.all([
      fetch(`${base}/v1/nowhere`, { headers: bearer }),
      fetch(`${base}/v1/pods`),
      fetch(`${base}/v1/templates`, {
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: '{"name": ',
      }),
      fetch(`${base}/v1/templates`, {
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x', imageName: 'i', unknownField: 1 }),
      }),
    ]);
    expect(replies.map((r) => r.status)).toEqual([404, 401, 400, 422]);
    for (const reply of replies) expect(await reply.text()).not.toMatch(STACK);
  });

  it('counts an operation in units of its cost, once however many fields, and answers 429 past the quota', async () => {
    const heavy = await userWithKey(db.url, 'heavy');
    // The minute window must not roll over in the middle (windows are aligned to the clock).
    if (60 - ((Date.now() / 1000) % 60) < 10) await new Promise((r) => setTimeout(r, 11_000));
    const remaining = (answer: Answer) =>
      Number(/"minute";r=(\d+)/.exec(answer.headers.get('ratelimit') ?? '')?.[1]);

    const cheap = await query('query { a: myself { id } b: myself { id } }', heavy.key);
    expect(cheap.status).toBe(200);
    expect(cheap.headers.get('ratelimit-policy')).toMatch(`"minute";q=${GRAPHQL_MINUTE_QUOTA};w=60`);
    expect(remaining(cheap)).toBe(GRAPHQL_MINUTE_QUOTA - 1);

    const costly = await query(COSTLY, heavy.key);
    expect(costly.status).toBe(200);
    expect(remaining(costly)).toBe(GRAPHQL_MINUTE_QUOTA - 1 - COSTLY_UNITS);

    // Admitted while the window has room at all, then counted in full: the window is now past its quota.
    expect((await query(COSTLY, heavy.key)).status).toBe(200);
    const limited = await query('query { myself { id } }', heavy.key);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.errors?.[0]).toEqual(
      expect.objectContaining({
        message: expect.stringMatching(
          /^rate limit exceeded: the minute window of GraphQL allows 40 cost units/,
        ),
        extensions: expect.objectContaining({ code: 'RATE_LIMITED' }),
      }),
    );
    // Another user's quota is their own.
    expect((await query('query { myself { id } }')).status).toBe(200);
  });
});
