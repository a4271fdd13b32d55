import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createKey, revokeKey, userWithKey, type TestKey } from '../support/accounts.js';
import { startJobsSystem, type JobsSystem } from './jobs.e2e-helpers.js';

/**
 * GET /status and /status-sync are registered on Fastify itself, not by a Nest controller
 * (apps/gateway/src/jobs/job-read-routes.setup.ts). Their refusals are compared here with those of Nest routes
 * of the same endpoint, answer for answer: GET /health (the same key rule, the same `queue.status` policy, so
 * the same counter) for the key, the scope, the endpoint and the limit; GET /stream and POST /cancel for an
 * unknown job and a bad parameter.
 */

const STATUS_QUOTA = 40;

interface Answer {
  status: number;
  /** Header names, but those that differ between any two answers (date, length, request id, keep-alive). */
  headerNames: string[];
  contentType: string | null;
  rateLimitPolicy: string | null;
  /** `r` of the RateLimit field's first (minute) window; null without the field. */
  remaining: number | null;
  retryAfter: string | null;
  body: unknown;
}

const VARYING_HEADERS = new Set(['date', 'content-length', 'x-request-id', 'keep-alive', 'connection']);

async function answer(url: string, authorization?: string, post?: { body?: unknown }): Promise<Answer> {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  if (post?.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method: post ? 'POST' : 'GET',
    headers,
    body: post?.body === undefined ? undefined : JSON.stringify(post.body),
  });
  const text = await response.text();
  const rateLimit = response.headers.get('ratelimit');
  return {
    status: response.status,
    headerNames: [...response.headers.keys()].filter((name) => !VARYING_HEADERS.has(name)).sort(),
    contentType: response.headers.get('content-type'),
    rateLimitPolicy: response.headers.get('ratelimit-policy'),
    remaining: rateLimit === null ? null : Number(/;r=(\d+)/.exec(rateLimit)?.[1]),
    retryAfter: response.headers.get('retry-after'),
    body: text ? (JSON.parse(text) as unknown) : undefined,
  };
}

/** What two routes' answers to the same refusal share: all of it but the count left in the window. */
function comparable({ remaining: _remaining, ...rest }: Answer): Omit<Answer, 'remaining'> {
  return rest;
}

/** Waits, when fewer than `seconds` are left in this minute, for the next one (the limiter's windows). */
async function roomInMinute(seconds: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

describe('the job reads answer as the Nest routes do', () => {
  let jobs: JobsSystem;
  let endpointId: string;
  let jobId: string;
  const keys: Record<string, string | undefined> = {};
  let intruder: TestKey;

  const url = (path: string, endpoint = endpointId) => `${jobs.gateway}/v2/${endpoint}${path}`;
  const reads = (endpoint = endpointId) => [
    ['/status', url(`/status/${jobId}`, endpoint)],
    ['/status-sync', url(`/status-sync/${jobId}?wait=1000`, endpoint)],
  ];

  beforeAll(async () => {
    jobs = await startJobsSystem('reads', {
      endpoints: ['limited', 'other'],
      env: { RATE_LIMITS_ENABLED: 'true' },
      gateway: { RATE_LIMIT_QUEUE_STATUS: `${STATUS_QUOTA},10000,100000` },
    });
    endpointId = jobs.endpoints.qb;
    const run = await fetch(url('/run'), {
      method: 'POST',
      headers: { authorization: jobs.user.key, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { read: true } }),
    });
    jobId = ((await run.json()) as { id: string }).id;
    const owner = 'owner-reads';
    const revoked = await createKey(jobs.db.url, owner);
    await revokeKey(jobs.db.url, revoked.id, jobs.system.natsPrefix);
    intruder = await userWithKey(jobs.db.url, 'intruder-reads');
    Object.assign(keys, {
      'no key': undefined,
      'an empty header': '',
      'a malformed header': 'Token abc',
      'an unknown key': `cpk_${'A'.repeat(43)}`,
      'a revoked key': revoked.key,
      "a key of another endpoint's scope": (
        await createKey(jobs.db.url, owner, 'endpoints', [jobs.endpoints.other])
      ).key,
      "the endpoint's worker key": jobs.workerKeys[endpointId],
    });
  });

  afterAll(async () => {
    await jobs?.close();
  });

  it('serves a job read with the RateLimit headers of the counter GET /health counts on', async () => {
    await roomInMinute(5);
    const status = await answer(url(`/status/${jobId}`), jobs.user.key);
    const health = await answer(url('/health'), jobs.user.key);
    const again = await answer(url(`/status/${jobId}`), `Bearer ${jobs.user.key}`);
    expect(status).toMatchObject({ status: 200, body: { id: jobId, status: 'IN_QUEUE' } });
    expect(status.contentType).toBe(health.contentType);
    expect(status.headerNames).toEqual(health.headerNames);
    expect(status.rateLimitPolicy).toBe(health.rateLimitPolicy);
    expect(status.rateLimitPolicy).toContain(`q=${STATUS_QUOTA}`);
    expect([status.remaining, health.remaining, again.remaining]).toEqual([
      status.remaining,
      status.remaining! - 1,
      status.remaining! - 2,
    ]);
  });

  it.each([
    'no key',
    'an empty header',
    'a malformed header',
    'an unknown key',
    'a revoked key',
    "a key of another endpoint's scope",
    "the endpoint's worker key",
  ])('refuses %s as GET /health does (401 without, 403 with the RateLimit headers)', async (label) => {
    const health = await answer(url('/health'), keys[label]);
    expect([401, 403]).toContain(health.status);
    expect(health.contentType).toMatch(/^application\/problem\+json/);
    expect(health.rateLimitPolicy === null).toBe(health.status === 401);
    for (const [route, read] of reads()) {
      expect({ route, ...comparable(await answer(read, keys[label])) }).toEqual({
        route,
        ...comparable(health),
      });
    }
  });

  it.each([
    ['an unknown endpoint', () => 'ep-reads-unknown', () => jobs.user.key, 404],
    ["another user's endpoint", () => endpointId, () => intruder.key, 403],
    ['a load-balancing endpoint', () => jobs.endpoints.lb, () => jobs.user.key, 400],
  ])('answers %s as GET /health does', async (_label, endpoint, key, expected) => {
    const health = await answer(url('/health', endpoint()), key());
    expect(health.status).toBe(expected);
    for (const [route, read] of reads(endpoint())) {
      expect({ route, ...comparable(await answer(read, key())) }).toEqual({
        route,
        ...comparable(health),
      });
    }
  });

  it('answers an unknown job as GET /stream and POST /cancel do (404 problem+json)', async () => {
    const status = await answer(url('/status/no-such-job'), jobs.user.key);
    const statusSync = await answer(url('/status-sync/no-such-job?wait=1000'), jobs.user.key);
    const stream = await answer(url('/stream/no-such-job'), jobs.user.key);
    const cancel = await answer(url('/cancel/no-such-job'), jobs.user.key, {});
    expect(status.status).toBe(404);
    for (const other of [statusSync, stream, cancel]) {
      // Each route counts under its own policy: the headers' values differ, not which headers there are.
      expect({ ...comparable(other), rateLimitPolicy: null }).toEqual({
        ...comparable(status),
        rateLimitPolicy: null,
      });
    }
  });

  it('refuses a control character in the job id as GET /stream does (400)', async () => {
    const status = await answer(url('/status/bad%01id'), jobs.user.key);
    const stream = await answer(url('/stream/bad%01id'), jobs.user.key);
    expect(status.status).toBe(400);
    expect({ ...comparable(status), rateLimitPolicy: null }).toEqual({
      ...comparable(stream),
      rateLimitPolicy: null,
    });
  });

  it('refuses a query parameter out of range as POST /runsync does (422, one entry per parameter)', async () => {
    const status = await answer(url(`/status/${jobId}?ttl=5`), jobs.user.key);
    const runsync = await answer(url('/runsync?wait=0'), jobs.user.key, { body: { input: {} } });
    expect(status).toMatchObject({ status: 422, body: { errors: [expect.stringMatching(/^ttl must be/)] } });
    expect(runsync).toMatchObject({
      status: 422,
      body: { errors: [expect.stringMatching(/^wait must be/)] },
    });
    const { errors: _status, ...statusProblem } = status.body as Record<string, unknown>;
    const { errors: _runsync, ...runsyncProblem } = runsync.body as Record<string, unknown>;
    expect(statusProblem).toEqual(runsyncProblem);
  });

  it('shares the queue.status window with GET /health and refuses both alike once it is full (429)', async () => {
    const limited = jobs.endpoints.limited;
    await roomInMinute(15);
    const answers: Answer[] = [];
    for (let i = 0; i < STATUS_QUOTA; i++) {
      answers.push(
        await answer(i % 2 ? url('/health', limited) : url(`/status/${jobId}`, limited), jobs.user.key),
      );
    }
    // The job belongs to another endpoint: 404, counted all the same.
    expect(answers.map((a) => a.remaining)).toEqual(
      Array.from({ length: STATUS_QUOTA }, (_, i) => STATUS_QUOTA - 1 - i),
    );
    const status = await answer(url(`/status/${jobId}`, limited), jobs.user.key);
    const statusSync = await answer(url(`/status-sync/${jobId}`, limited), jobs.user.key);
    const health = await answer(url('/health', limited), jobs.user.key);
    expect(health.status).toBe(429);
    expect(Number(health.retryAfter)).toBeGreaterThan(0);
    for (const read of [status, statusSync]) {
      // The seconds to wait may tick over between two answers.
      const sameSecond = (a: Answer) =>
        JSON.stringify(comparable(a)).replace(/(retry after |"retryAfter":"|;t=)\d+/g, '$1S');
      expect(sameSecond(read)).toBe(sameSecond(health));
    }
  });
});
