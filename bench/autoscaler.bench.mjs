// Autoscaler benchmark (not a test), against a running `npm start` (or any deployment):
//   1. first job of a burst -> first scale-up decision (the worker appears in `myself { endpoints { pods } }`);
//   2. zero workers -> first completed job (/runsync), without FLASHBOOT (a new worker pod each time) and with
//      FLASHBOOT (the stopped worker is resumed).
//
//   node bench/autoscaler.bench.mjs [--runs 5] [--idle 2]
//
// Environment: API_KEY (default .local/bootstrap-key), BASE_URL (default http://127.0.0.1:8080), WORKER_IMAGE
// (default: the first image of apps/pod-lifecycle/local-images.json whose name contains "echo"). The numbers
// include up to one AUTOSCALER_TICK_MS of the autoscaler and the runtime's start time; results are printed and
// written to bench/results/autoscaler-<time>.json.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, idle: { type: 'string', default: '2' } },
});
const RUNS = Number(values.runs);
const IDLE = Number(values.idle);
const BASE = process.env.BASE_URL ?? 'http://127.0.0.1:8080';
const KEY = process.env.API_KEY ?? readKey();
const IMAGE = process.env.WORKER_IMAGE ?? echoImage();

function readKey() {
  const file = join(ROOT, '.local', 'bootstrap-key');
  if (!existsSync(file)) throw new Error('no API key: set API_KEY or run npm start once');
  return readFileSync(file, 'utf8').trim();
}

function echoImage() {
  const catalog = JSON.parse(readFileSync(join(ROOT, 'apps/pod-lifecycle/local-images.json'), 'utf8'));
  const image = Object.keys(catalog.images).find((name) => name.includes('echo'));
  if (!image) throw new Error('no echo worker in apps/pod-lifecycle/local-images.json: set WORKER_IMAGE');
  return image;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function http(method, path, body) {
  const response = await fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function graphql(query) {
  const answer = await http('POST', '/graphql', { query });
  if (answer.errors) throw new Error(answer.errors.map((e) => e.message).join('; '));
  return answer.data;
}

async function pods(endpointId) {
  const data = await graphql('query { myself { endpoints { id pods { id desiredStatus status } } } }');
  return data.myself.endpoints.find((e) => e.id === endpointId)?.pods ?? [];
}

async function until(probe, timeoutMs = 120_000, everyMs = 20) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(everyMs);
  }
}

async function endpoint(templateId, flashBoot) {
  const data = await graphql(`mutation { saveEndpoint(input: { name: "bench", templateId: "${templateId}",
    gpuIds: "AMPERE_16", workersMin: 0, workersMax: 4, idleTimeout: ${IDLE}, scalerValue: 1,
    flashBootType: ${flashBoot ? 'FLASHBOOT' : 'OFF'} }) { id } }`);
  return data.saveEndpoint.id;
}

async function remove(id, templateId) {
  await graphql(`mutation { saveEndpoint(input: { id: "${id}", name: "bench", templateId: "${templateId}",
    gpuIds: "AMPERE_16", workersMin: 0, workersMax: 0 }) { id } }`);
  await graphql(`mutation { deleteEndpoint(id: "${id}") }`);
}

const idle = async (id) => until(async () => (await pods(id)).every((p) => p.desiredStatus !== 'RUNNING'));

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { runs: sorted.length, minMs: sorted[0], p50Ms: at(0.5), maxMs: sorted.at(-1) };
}

const template = await http('POST', '/v1/templates', {
  name: `bench-${Date.now()}`,
  imageName: IMAGE,
  isServerless: true,
});
const results = {};

// 1. first job of a burst -> first scale-up decision.
{
  const samples = [];
  const id = await endpoint(template.id, false);
  for (let i = 0; i < RUNS; i++) {
    await idle(id);
    await until(async () => (await pods(id)).length === 0);
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 4 }, (_, n) => http('POST', `/v2/${id}/run`, { input: { n } })));
    await until(async () => (await pods(id)).some((p) => p.desiredStatus === 'RUNNING'), 60_000, 5);
    samples.push(Math.round(performance.now() - t0));
  }
  await idle(id);
  await remove(id, template.id);
  results.burstToScaleUpDecision = summary(samples);
}

// 2. zero workers -> first completed job, without and with FLASHBOOT.
for (const flashBoot of [false, true]) {
  const samples = [];
  const id = await endpoint(template.id, flashBoot);
  if (flashBoot) {
    await http('POST', `/v2/${id}/runsync?wait=120000`, { input: { warm: true } });
    await idle(id);
  }
  for (let i = 0; i < RUNS; i++) {
    await idle(id);
    if (!flashBoot) await until(async () => (await pods(id)).length === 0);
    const t0 = performance.now();
    const job = await http('POST', `/v2/${id}/runsync?wait=120000`, { input: { i } });
    if (job.status !== 'COMPLETED') throw new Error(`job ${job.id} ended ${job.status}`);
    samples.push(Math.round(performance.now() - t0));
  }
  await idle(id);
  await remove(id, template.id);
  results[flashBoot ? 'zeroToFirstCompletedFlashBoot' : 'zeroToFirstCompleted'] = summary(samples);
}

console.table(results);
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
const file = join(
  ROOT,
  'bench',
  'results',
  `autoscaler-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
);
writeFileSync(
  file,
  `${JSON.stringify({ base: BASE, image: IMAGE, idleTimeoutS: IDLE, results }, null, 2)}\n`,
);
console.log(`written to ${file}`);
