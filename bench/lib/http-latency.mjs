// A small HTTP load client with sub-millisecond latency: autocannon counts whole milliseconds, so a local call
// of 0.2 ms reads 0 and a ratio against it is Infinity. Each request is timed with `process.hrtime.bigint()`
// from just before it is handed to undici to the end of its response body. A fixed number of keep-alive
// connections (no pipelining), each sending its next request once the previous response ended (a closed loop):
// the same shape for every URL it is pointed at, so two sides measured with it compare like for like.
import { Pool } from 'undici';
import { latencySummary, percentile } from './stats.mjs';

/**
 * GET `url` on `connections` connections for `seconds`; throws on any error or non-2xx answer (a figure over
 * failures would flatter the side that fails). Returns p50/p99 in ms (µs resolution), 2xx per second, and the
 * samples themselves (ms, in the order they ended) for a caller that pools several rounds.
 */
export async function measureHttp({ url, headers = {}, connections, seconds }) {
  const target = new URL(url);
  const path = `${target.pathname}${target.search}`;
  const pool = new Pool(target.origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const samples = [];
  let failure = null;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  async function loop() {
    while (failure === null && performance.now() < deadline) {
      const t0 = process.hrtime.bigint();
      try {
        const response = await pool.request({ path, method: 'GET', headers });
        for await (const chunk of response.body) void chunk;
        if (response.statusCode < 200 || response.statusCode > 299) {
          failure = new Error(`GET ${url} answered ${response.statusCode}`);
          return;
        }
      } catch (error) {
        failure = error;
        return;
      }
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  try {
    await Promise.all(Array.from({ length: connections }, loop));
  } finally {
    await pool.close();
  }
  if (failure) throw failure;
  const elapsed = (performance.now() - started) / 1000;
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    reqPerSec: samples.length / elapsed,
    requests: samples.length,
    samples,
  };
}

/**
 * `count` GETs of `url` one after another on a kept-alive connection (fetch's), each timed to the end of its body;
 * throws on any answer but 200. Returns p50 and p99 in ms.
 */
export async function sequentialGets(url, headers, count) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    samples.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}`);
  }
  return latencySummary(samples);
}
