import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWorker } from './worker.js';

const JOBS = 4;

/** What the fake platform received, in the order it arrived: `take` (a job-take-batch) or `done:<job id>`. */
const arrivals: string[] = [];
const held: http.ServerResponse[] = [];
let server: http.Server;
let base: string;
let served = 0;
let allDone: () => void = () => undefined;
const finished = new Promise<void>((resolve) => (allDone = resolve));

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://platform');
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (url.pathname.includes('/job-take-batch/')) {
        arrivals.push('take');
        // One job per poll, then the polls are held (as a long poll with nothing queued) until the end.
        if (served < JOBS) return json(200, [{ id: `job-${++served}`, input: { n: served } }]);
        held.push(res);
        return;
      }
      if (url.pathname.includes('/job-done/')) {
        const jobId = url.pathname.split('/').at(-1)!;
        arrivals.push(`done:${jobId}`);
        expect(JSON.parse(body)).toEqual({ output: { n: Number(jobId.slice(4)) } });
        json(200, {});
        if (arrivals.filter((a) => a.startsWith('done:')).length === JOBS) allDone();
        return;
      }
      if (url.pathname.includes('/job-stop/')) {
        held.push(res);
        return;
      }
      json(200, { ok: true }); // ping
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/ep1`;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('startWorker', () => {
  it("puts a job's result on the wire before its poll for the slots still free", async () => {
    const worker = startWorker({
      handler: (job) => job.input,
      concurrency: 2,
      exitOnSignal: false,
      shutdownGraceMs: 1000,
      log: () => undefined,
      env: {
        RUNPOD_POD_ID: 'pod-1',
        RUNPOD_WEBHOOK_GET_JOB: `${base}/job-take/$ID`,
        RUNPOD_WEBHOOK_POST_OUTPUT: `${base}/job-done/$RUNPOD_POD_ID/$ID`,
        RUNPOD_WEBHOOK_PING: `${base}/ping/$RUNPOD_POD_ID`,
        RUNPOD_AI_API_KEY: 'worker-key',
        RUNPOD_PING_INTERVAL: '60000',
      },
    });
    await finished;
    await worker.stop();
    // Each job's done arrived before the poll that followed its take: the platform reads the result a caller
    // waits for first, not a long poll it would start to hold.
    const expected = Array.from({ length: JOBS }, (_, i) => ['take', `done:job-${i + 1}`]).flat();
    expect(arrivals.slice(0, 2 * JOBS)).toEqual(expected);
    expect(arrivals[2 * JOBS]).toBe('take');
  });
});
