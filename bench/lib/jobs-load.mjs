// The job load the queue scenarios share (throughput, drain, replicas): jobs submitted through `POST /run` by
// concurrent clients, and the broker's own record of when each was queued, taken and finished.
import http from 'node:http';
import { percentile } from './stats.mjs';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `fn(0..count-1)` with at most `concurrency` calls in flight. */
export async function pool(count, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/** The submitters' connections (and a floor worker's, in its own process): kept alive, as a real client's would be. */
const agent = new http.Agent({ keepAlive: true });

/**
 * One request with node:http on the kept-alive agent, `body` (a string) sent as JSON; resolves { status, json },
 * json null for an empty body. Rejects on a body that is not JSON.
 */
export function requestJson(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const sent =
      body === undefined
        ? {}
        : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    const request = http.request(url, { method, agent, headers: { ...headers, ...sent } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('error', reject);
      response.on('end', () => {
        try {
          resolve({ status: response.statusCode, json: text ? JSON.parse(text) : null });
        } catch (error) {
          reject(
            new Error(`${url}: HTTP ${response.statusCode}, not JSON: ${text.slice(0, 200)} (${error})`),
          );
        }
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Submits `count` jobs (`{ input: { n } }`) through `POST <base>/run` from `submitters` concurrent clients, the
 * n-th to `bases[n % bases.length]` (round-robin over gateways). Resolves a Map job id → Date.now() at its submit
 * start; throws on any answer but 200. The clients are node:http on kept-alive connections: the load generator
 * shares the machine's two cores with the system, and fetch (undici) spent about four times node:http's CPU per
 * request, CPU the BullMQ side's clients (ioredis) never spend.
 */
export async function submitJobs({ bases, key, count, submitters }) {
  const submittedAt = new Map();
  await pool(count, submitters, async (n) => {
    const started = Date.now();
    const { status, json } = await requestJson(`${bases[n % bases.length]}/run`, {
      method: 'POST',
      headers: { authorization: key },
      body: JSON.stringify({ input: { n } }),
    });
    if (status !== 200) throw new Error(`/run: HTTP ${status} ${JSON.stringify(json)}`);
    submittedAt.set(json.id, started);
  });
  return submittedAt;
}

/** Jobs of the endpoint not finished yet (an index count, whatever the number of jobs), but those of `except`. */
async function unfinishedOn(sql, endpointId, except = []) {
  const { rows } = await sql.query(
    `SELECT count(*)::int AS n FROM queue_broker.jobs
      WHERE endpoint_id = $1 AND status IN ('IN_QUEUE', 'IN_PROGRESS') AND NOT (id = ANY($2::text[]))`,
    [endpointId, except],
  );
  return rows[0].n;
}

/**
 * Waits until the broker has every job of `ids` finished (queue_broker.jobs.finished_at set), polling every
 * `intervalMs`; throws when one ended other than COMPLETED or after `timeoutMs`. Resolves a Map id → finished
 * (epoch ms). With `endpointId` (the jobs'), when the endpoint has no other job unfinished, the poll is the
 * endpoint's count of unfinished jobs (its status index), and the jobs are read by id once it is zero: polled by
 * id, 10,000 ids cost Postgres about 15 ms each time, CPU the system under test shares. `table`: where the jobs
 * are (the shape's floor keeps its own, with the same id, status and finished_at columns).
 */
export async function untilFinished(
  sql,
  ids,
  { timeoutMs, intervalMs = 100, endpointId, table = 'queue_broker.jobs' },
) {
  const deadline = performance.now() + timeoutMs;
  const counted = endpointId !== undefined && (await unfinishedOn(sql, endpointId, ids)) === 0;
  for (;;) {
    const settled = !counted || (await unfinishedOn(sql, endpointId)) === 0;
    if (settled) {
      const { rows } = await sql.query(
        `SELECT count(*)::int AS finished, count(*) FILTER (WHERE status <> 'COMPLETED')::int AS bad,
                min(id) FILTER (WHERE status <> 'COMPLETED') AS bad_id
           FROM ${table} WHERE id = ANY($1::text[]) AND finished_at IS NOT NULL`,
        [ids],
      );
      const { finished, bad, bad_id: badId } = rows[0];
      if (bad > 0) throw new Error(`${bad} job(s) did not complete (job ${badId}, for one)`);
      if (finished === ids.length) break;
      if (performance.now() > deadline) {
        throw new Error(
          `${ids.length - finished} of ${ids.length} jobs not finished within ${timeoutMs / 1000} s`,
        );
      }
    } else if (performance.now() > deadline) {
      throw new Error(`jobs of endpoint ${endpointId} not finished within ${timeoutMs / 1000} s`);
    }
    await sleep(intervalMs);
  }
  const { rows } = await sql.query(
    `SELECT id, (extract(epoch FROM finished_at) * 1000)::float8 AS finished
       FROM ${table} WHERE id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.finished]));
}

/**
 * jobs/s = count / (last finished − first submit started) and the p99 of each job's submit start → finished, of
 * Maps id → epoch ms.
 */
export function throughputOf(count, submittedAt, finishedAt) {
  const latencies = [...submittedAt.keys()].map((id) => finishedAt.get(id) - submittedAt.get(id));
  const first = Math.min(...submittedAt.values());
  const last = Math.max(...finishedAt.values());
  return { jobsPerSec: (count * 1000) / (last - first), p99: percentile(latencies, 99) };
}
