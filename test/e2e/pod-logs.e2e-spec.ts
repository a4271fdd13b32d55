import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PodStatus,
  type EndpointV2View,
  type PodLogPage,
  type PodView,
  type TemplateView,
} from '@app/contracts';
import { expectProblem, until, waitForPod } from './pods.e2e-helpers.js';
import { numbered, printer, readEvents } from './pod-logs.e2e-helpers.js';
import {
  startServerlessSystem,
  stopServerlessSystem,
  type ServerlessSystem,
} from './serverless-system.e2e-helpers.js';

const PASSWORD = 'registry-pass-7f3a9c21';

/**
 * Logs of pods and workers end to end: the local runtime runs catalog images that print numbered lines and the
 * secrets the platform injected into them (the registry password, a worker's key); the gateway serves the lines.
 */
describe('pod and worker logs', () => {
  let s: ServerlessSystem;
  let dir: string;
  let aliceKey: string;

  async function createPod(imageName: string, extra: Record<string, unknown> = {}): Promise<PodView> {
    const reply = await s.alice<PodView>('POST', '/v1/pods', {
      name: 'logs',
      imageName,
      gpuTypeId: 'NVIDIA L4',
      ...extra,
    });
    expect(reply.status).toBe(201);
    return waitForPod(s.alice, reply.body.id, PodStatus.Running);
  }

  async function page(path: string): Promise<PodLogPage> {
    const reply = await s.alice<PodLogPage>('GET', path);
    expect(reply.status).toBe(200);
    return reply.body;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gpucp-pod-logs-'));
    writeFileSync(
      join(dir, 'catalog.json'),
      JSON.stringify({
        images: {
          'test/printer': { command: printer('echo "pass=$ECHO_PASS"; echo "to stderr" >&2') },
          'test/worker-printer': { command: printer('echo "key=$RUNPOD_AI_API_KEY"', 0.2) },
        },
      }),
    );
    s = await startServerlessSystem('pod_logs', {
      'pod-lifecycle': {
        RUNTIME_DRIVER: 'local',
        LOCAL_IMAGE_CATALOG: join(dir, 'catalog.json'),
        LOCAL_PODS_DIR: join(dir, 'pods'),
        LOCAL_READY_MS: '100',
        SIM_PROVISION_MS: '100',
        SIM_START_MS: '100',
      },
    });
    aliceKey = s.aliceKey;
  });

  afterAll(async () => {
    await stopServerlessSystem(s ?? {});
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a pod’s lines in order as a page, stdout and stderr, the registry password redacted', async () => {
    const registry = await s.alice<{ id: string }>('POST', '/v2/registries', {
      name: 'private',
      username: 'me',
      password: PASSWORD,
    });
    expect(registry.status).toBe(201);
    const pod = await createPod('test/printer', {
      containerRegistryAuthId: registry.body.id,
      env: { ECHO_PASS: PASSWORD },
    });
    const { lines } = await until('five numbered lines', async () => {
      const got = await page(`/v2/pods/${pod.id}/logs`);
      return numbered(got.lines).length >= 5 && got;
    });
    expect(lines[0]).toEqual({
      time: expect.any(String),
      stream: 'stdout',
      line: 'pass=[redacted]',
      generation: 0,
    });
    expect(lines).toContainEqual(expect.objectContaining({ stream: 'stderr', line: 'to stderr' }));
    const numbers = numbered(lines);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    expect(JSON.stringify(lines)).not.toContain(PASSWORD);

    // tail, since, and what is not a valid query.
    expect(numbered((await page(`/v2/pods/${pod.id}/logs?tail=2`)).lines)).toHaveLength(2);
    expect(
      (await page(`/v2/pods/${pod.id}/logs?since=${new Date(Date.now() + 60_000).toISOString()}`)).lines,
    ).toEqual([]);
    expect((await page(`/v2/pods/${pod.id}/logs?since=3600`)).lines[0].line).toBe('pass=[redacted]');
    const invalid = await s.alice('GET', `/v2/pods/${pod.id}/logs?tail=-1&since=yesterday`);
    expectProblem(invalid, 422);
    expect((invalid.body as { errors?: string[] }).errors).toHaveLength(2);
  });

  it('follows a pod as server-sent events: stored lines then new ones, in order, until the pod is terminated', async () => {
    const pod = await createPod('test/printer');
    await until(
      'a few lines',
      async () => numbered((await page(`/v2/pods/${pod.id}/logs`)).lines).length >= 3,
    );
    const stored = numbered((await page(`/v2/pods/${pod.id}/logs`)).lines).length;

    const followed = await readEvents(
      s.system,
      aliceKey,
      `/v2/pods/${pod.id}/logs?follow=true&tail=3`,
      (lines) => numbered(lines).length >= 12,
    );
    expect(followed.status).toBe(200);
    expect(followed.contentType).toMatch(/^text\/event-stream/);
    const numbers = numbered(followed.lines);
    expect(numbers[0]).toBeGreaterThanOrEqual(stored - 2);
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0] + i)); // consecutive: nothing lost, nothing reordered
    expect(numbers.at(-1)).toBeGreaterThan(stored); // printed while following

    // Terminating the pod ends a following stream (after the runtime's last line).
    const ending = readEvents(s.system, aliceKey, `/v2/pods/${pod.id}/logs?follow=true&tail=0`, () => false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await s.alice('DELETE', `/v2/pods/${pod.id}`)).status).toBe(204);
    const ended = await ending;
    expect(ended.ended).toBe(true);
    expect(ended.lines.at(-1)).toEqual(expect.objectContaining({ stream: 'system' }));
  });

  it('serves the simulated runtime’s lifecycle lines', async () => {
    const pod = await createPod('gpucp/not-in-the-catalog:latest');
    const lines = await until('the running line', async () => {
      const got = (await page(`/v2/pods/${pod.id}/logs`)).lines;
      return got.some((l) => l.line === 'the container is running') && got;
    });
    expect(lines.map((l) => [l.stream, l.line])).toEqual([
      ['system', 'pulling image gpucp/not-in-the-catalog:latest'],
      ['system', 'pulled gpucp/not-in-the-catalog:latest, creating the container'],
      ['system', 'the container is running'],
    ]);
  });

  it('checks ownership: another user gets 403, an unknown pod 404', async () => {
    const pod = await createPod('gpucp/not-in-the-catalog:latest');
    expectProblem(await s.bob('GET', `/v2/pods/${pod.id}/logs`), 403);
    const sse = await readEvents(s.system, aliceKey, '/v2/pods/nope/logs?follow=true', () => true);
    expect(sse.status).toBe(404);
    expectProblem(await s.alice('GET', '/v2/pods/nope/logs'), 404);
  });

  it('serves a worker’s lines with its key redacted; only to the endpoint’s owner and for its own workers', async () => {
    const template = await s.alice<TemplateView>('POST', '/v1/templates', {
      name: 'printer-worker',
      imageName: 'test/worker-printer',
      isServerless: true,
    });
    const endpoint = await s.alice<EndpointV2View>('POST', '/v2/serverless', {
      name: 'printer',
      type: 'QUEUE',
      templateId: template.body.id,
      gpu: { pools: ['AMPERE_16'], count: 1 },
      workers: { min: 1, max: 1, idleTimeout: 10 },
    });
    expect(endpoint.status).toBe(201);
    const { id, aiKey } = endpoint.body as EndpointV2View & { aiKey: string };
    const worker = await until('the worker pod', async () => {
      const pods = (await s.alice<PodView[]>('GET', '/v1/pods')).body;
      return pods.find((p) => p.env.RUNPOD_ENDPOINT_ID === id);
    });
    const path = `/v2/serverless/${id}/workers/${worker.id}/logs`;
    const stored = numbered((await page(path)).lines).length;
    const followed = await readEvents(
      s.system,
      aliceKey,
      `${path}?follow=true`,
      (lines) => numbered(lines).length >= stored + 4,
    );
    expect(followed.lines[0]).toEqual(expect.objectContaining({ stream: 'stdout', line: 'key=[redacted]' }));
    const numbers = numbered(followed.lines);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1)); // in order, the ones printed while following included
    expect(aiKey).toEqual(expect.any(String));
    expect(JSON.stringify(followed.lines)).not.toContain(aiKey);

    expectProblem(await s.bob('GET', path), 403);
    const otherPod = await createPod('gpucp/not-in-the-catalog:latest');
    expectProblem(await s.alice('GET', `/v2/serverless/${id}/workers/${otherPod.id}/logs`), 404);
    expectProblem(await s.alice('GET', `/v2/serverless/${id}/workers/nope/logs`), 404);
  });
});
