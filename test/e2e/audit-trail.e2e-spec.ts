import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AuditEntry, AuditPage, EndpointV2View, PodV2View } from '@app/contracts';
import { ROOT } from '../support/paths.js';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { A100, writeFleet } from './clusters-fixtures.js';
import { expectProblem, until, waitForPod, type Call } from './pods.e2e-helpers.js';
import { startServerlessSystem, stopServerlessSystem } from './serverless-system.e2e-helpers.js';

/**
 * The audit trail end to end (docs/adr/0035-audit-trail.md), all five apps on the simulated runtime: alice and bob
 * act; each reads back, from GET /v2/audit, what they did and what was refused, with the machine's decisions made
 * for them (the autoscaler's scale-up, a placement refused), and nothing of the other's account.
 */
const FLEET = writeFleet([{ id: 'ro-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 2 }]);

describe('the audit trail', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;
  let aliceKey: string;
  let bob: Call;
  let reader: Call;
  let templateId: string;
  let pod: PodV2View;
  let endpoint: EndpointV2View;

  const podBody = (name: string, count = 1) => ({
    name,
    image: 'runpod/base:0.6.2',
    gpu: { id: A100, count },
    disk: 10,
  });
  const trail = async (who: Call, query = ''): Promise<AuditEntry[]> => {
    const reply = await who<AuditPage>('GET', `/v2/audit${query}`);
    expect(reply.status).toBe(200);
    return reply.body.entries;
  };
  /** Entries arrive through the outbox and the events stream: the trail is read until `probe` finds them. */
  const eventually = (what: string, who: Call, probe: (entries: AuditEntry[]) => boolean, query = '') =>
    until(what, async () => probe(await trail(who, query)) && (await trail(who, query)), 20_000);

  beforeAll(async () => {
    let template;
    ({ db, system, alice, aliceKey, bob, reader, template } = await startServerlessSystem('audit_trail', {
      'cluster-scheduler': { FLEET_FILE: FLEET },
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '200' },
    }));
    templateId = template.id;
  });

  afterAll(() => stopServerlessSystem({ db, system }));

  it("records alice's pod create and stop, who did them with which key, and when", async () => {
    const created = await alice<PodV2View>('POST', '/v2/pods', podBody('audited'));
    expect(created.status).toBe(201);
    pod = created.body;
    await waitForPod(alice, pod.id, 'RUNNING');
    expect((await alice('POST', `/v2/pods/${pod.id}/action`, { action: 'stop' })).status).toBe(200);
    const entries = await eventually('the stop entry', alice, (e) =>
      e.some((x) => x.action === 'pod.stop' && x.resourceId === pod.id),
    );
    const [stop, create] = entries.filter((e) => e.resourceId === pod.id && e.actor.kind === 'user');
    expect(stop).toMatchObject({ action: 'pod.stop', resourceType: 'pod', outcome: { ok: true } });
    expect(create).toMatchObject({
      action: 'pod.create',
      resourceType: 'pod',
      resourceId: pod.id,
      outcome: { ok: true },
      details: { name: 'audited' },
      actor: { kind: 'user', keyId: expect.any(String) },
    });
    expect(create.accountId).toBe(create.actor.userId);
    expect(Date.parse(stop.at)).toBeGreaterThanOrEqual(Date.parse(create.at));
    // Never a value of the command: the create's environment, image, disk are not in it.
    expect(JSON.stringify(entries)).not.toContain('runpod/base');
  });

  it("records bob's refused stop of alice's pod in bob's trail, not in alice's", async () => {
    const refused = await bob('POST', `/v2/pods/${pod.id}/action`, { action: 'start' });
    expect([403, 404]).toContain(refused.status);
    const trailOfBob = await eventually('bob refused', bob, (e) => e.some((x) => x.action === 'pod.start'));
    // Bob's own account: his user and his key (made by the keys CLI, recorded like the rest), and his refusal.
    expect(trailOfBob.map((e) => e.action)).toEqual(
      expect.arrayContaining(['user.create', 'api-key.create']),
    );
    const bobs = trailOfBob.filter((e) => e.action === 'pod.start');
    expect(bobs).toEqual([
      expect.objectContaining({
        action: 'pod.start',
        resourceId: pod.id,
        outcome: expect.objectContaining({ ok: false, code: expect.stringMatching(/FORBIDDEN|NOT_FOUND/) }),
      }),
    ]);
    const alices = await trail(alice);
    expect(alices.some((e) => e.action === 'pod.start')).toBe(false);
    expect(new Set(alices.map((e) => e.accountId))).toEqual(new Set([alices[0].accountId]));
    expect(bobs[0].accountId).not.toBe(alices[0].accountId);
  });

  it('records a refused placement and the refused create it caused', async () => {
    expectProblem(await alice('POST', '/v2/pods', podBody('too-big', 8)), 409);
    const entries = await eventually('the refused create', alice, (e) =>
      e.some((x) => x.action === 'pod.create' && !x.outcome.ok),
    );
    expect(entries.find((e) => e.action === 'pod.create' && !e.outcome.ok)).toMatchObject({
      resourceId: null,
      details: { name: 'too-big' },
      outcome: { ok: false, code: expect.any(String), message: expect.any(String) },
    });
    expect(entries.find((e) => e.action === 'placement.reserve')).toMatchObject({
      resourceType: 'pod',
      outcome: { ok: false },
    });
  });

  it("records the autoscaler's scale-up for the endpoint's owner, as a system decision with its reason", async () => {
    const saved = await alice<EndpointV2View>('POST', '/v2/serverless', {
      name: 'audited-endpoint',
      type: 'QUEUE',
      templateId,
      gpu: { pools: ['AMPERE_80'], count: 1 },
      workers: { min: 1, max: 1 },
    });
    expect(saved.status).toBe(201);
    endpoint = saved.body;
    const entries = await eventually('the scale-up', alice, (e) =>
      e.some((x) => x.action === 'pod.create' && x.actor.kind === 'system'),
    );
    expect(entries.find((e) => e.action === 'endpoint.save')).toMatchObject({
      resourceType: 'endpoint',
      resourceId: endpoint.id,
      outcome: { ok: true },
    });
    const scaleUp = entries.find((e) => e.action === 'pod.create' && e.actor.kind === 'system')!;
    expect(scaleUp.actor.reason).toMatch(/^autoscaler: scale-up: /);
    expect(scaleUp.accountId).toBe(entries[0].accountId);
  });

  it('filters, pages newest first with its cursor, and names a bad filter', async () => {
    const all = await trail(alice, '?limit=500');
    const creates = await trail(alice, '?action=pod.create');
    expect(creates.length).toBeGreaterThanOrEqual(3);
    expect(creates.every((e) => e.action === 'pod.create')).toBe(true);
    expect(
      (await trail(alice, `?resourceId=${pod.id}&actor=${all[0].accountId}`)).map((e) => e.action),
    ).toEqual(['pod.stop', 'pod.create']);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page: AuditPage = (await alice<AuditPage>('GET', `/v2/audit${query}`)).body;
      paged.push(...page.entries.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(all.map((e) => e.id));
    const times = all.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(await trail(alice, `?from=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);

    const bad = await alice<{ errors: string[] }>('GET', '/v2/audit?limit=9999&action=pod.explode');
    expectProblem(bad, 422);
    expect(bad.body.errors).toEqual([
      expect.stringMatching(/^action must be one of/),
      'limit must be an integer from 1 to 500',
    ]);
  });

  it("lets a read key read its account's trail, and nobody but an operator another account's", async () => {
    const own = await trail(reader);
    expect(own.length).toBeGreaterThan(0);
    const bobs = await trail(bob);
    expectProblem(await alice('GET', `/v2/audit?accountId=${bobs[0].accountId}`), 403);
    expect(JSON.stringify(bobs)).not.toContain(endpoint.id);
  });

  it('gpucp audit prints the same trail, filtered, as a table or as the page', async () => {
    const gpucp = (args: string[]) =>
      new Promise<{ code: number; stdout: string }>((resolve) =>
        execFile(
          process.execPath,
          [join(ROOT, 'dist/tools/gpucp/gpucp.cli.js'), ...args],
          { env: { PATH: process.env.PATH, GPUCP_API_URL: system.url('gateway'), GPUCP_API_KEY: aliceKey } },
          (error, stdout) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
        ),
      );
    const json = await gpucp(['audit', '--action', 'pod.stop', '--resource-id', pod.id, '--json']);
    expect(json.code).toBe(0);
    const page = JSON.parse(json.stdout) as AuditPage;
    expect(page.entries.map((e) => e.action)).toEqual(['pod.stop']);
    const table = await gpucp(['audit', '--resource-type', 'pod', '--all']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^AT\s+ACCOUNT\s+ACTOR\s+ACTION\s+RESOURCE\s+OUTCOME$/);
    expect(table.stdout).toContain(`pod.stop`);
    expect(table.stdout).toMatch(/system \(autoscaler: scale-up: /);
    const bad = await gpucp(['audit', '--limit', '0']);
    expect(bad.code).toBe(1);
  });
});
