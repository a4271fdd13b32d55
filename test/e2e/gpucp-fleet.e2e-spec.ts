import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { HostDetailView, PodV2View } from '@app/contracts';
import { keysCli, userWithKey, type TestKey } from '../support/accounts.js';
import { ROOT } from '../support/paths.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { A100, api, writeFleet } from './clusters-fixtures.js';
import { until } from './pods.e2e-helpers.js';

const CLI = join(ROOT, 'dist/tools/gpucp/gpucp.cli.js');
const FLEET = writeFleet([{ id: 'seed-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 2 }]);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `gpucp fleet` run as a process against the gateway, the cluster scheduler and pod-lifecycle (simulated), as an
 * operator would run it: configured only through GPUCP_API_URL and GPUCP_API_KEY.
 */
describe('gpucp fleet', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let operatorKey: string;
  let alice: TestKey;

  const gpucp = (key: string, args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [CLI, ...args],
        { env: { PATH: process.env.PATH, GPUCP_API_URL: system.url('gateway'), GPUCP_API_KEY: key } },
        (error, stdout, stderr) => {
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
        },
      );
    });
  const ops = (...args: string[]) => gpucp(operatorKey, args);

  beforeAll(async () => {
    db = await createTestDatabase('gpucp_fleet');
    system = await startApps({
      databaseUrl: db.url,
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
      appEnv: {
        gateway: { RATE_LIMITS_ENABLED: 'false' },
        'cluster-scheduler': { FLEET_FILE: FLEET },
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      },
    });
    alice = await userWithKey(db.url, 'alice');
    await keysCli(db.url, ['user', 'create', 'ops']);
    operatorKey = (
      JSON.parse(await keysCli(db.url, ['key', 'create', 'ops', '--scope', 'operator', '--json'])) as TestKey
    ).key;
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it("is refused to a user's key; a health report without --healthy or --unhealthy is a usage error", async () => {
    expect(await gpucp(alice.key, ['fleet', 'hosts'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/forbidden \(403\).*operators'/),
    });
    expect(await ops('fleet', 'health', 'seed-a100-1')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--unhealthy or --healthy/),
    });
    expect(
      await ops('fleet', 'register', 'h-x', '--dc', 'EU-RO-1', '--ip', '10.0.0.1', '--ports', '5'),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--ports takes first-last/),
    });
  });

  it('registers a host, lists and filters the hosts, shows one, cordons and uncordons it', async () => {
    const registered = await ops(
      'fleet',
      'register',
      'ro-a100-2',
      '--dc',
      'EU-RO-1',
      '--gpu-type',
      A100,
      '--gpus',
      '4',
      '--ip',
      '203.0.113.20',
      '--ports',
      '21000-21099',
    );
    expect(registered.code).toBe(0);
    expect(registered.stdout).toMatch(/^id: ro-a100-2$/m);
    expect(registered.stdout).toMatch(/^state: READY$/m);
    expect(registered.stdout).toMatch(/^address: 203\.0\.113\.20 ports 21000-21099$/m);
    expect(registered.stdout).toMatch(/^source: api$/m);

    const hosts = await ops('fleet', 'hosts', '--dc', 'EU-RO-1');
    expect(hosts.code).toBe(0);
    expect(hosts.stdout).toMatch(/^ID\s+DATA CENTER\s+GPU TYPE\s+GPUS\s+PODS\s+STATE\s+SOURCE\s+REASON$/m);
    expect(hosts.stdout).toMatch(
      new RegExp(`^ro-a100-2\\s+EU-RO-1\\s+${A100}\\s+0/4\\s+0\\s+READY\\s+api\\s+-$`, 'm'),
    );
    expect(hosts.stdout).toMatch(/^seed-a100-1\s+EU-RO-1\s+.*\s+0\/2\s+0\s+READY\s+file\s+-$/m);

    const cordoned = await ops('fleet', 'cordon', 'ro-a100-2', '--reason', 'new firmware');
    expect(cordoned.code).toBe(0);
    expect(cordoned.stdout).toMatch(/^state: CORDONED$/m);
    expect(cordoned.stdout).toMatch(/^scheduling: CORDONED by operator since .* \(new firmware\)$/m);
    const listed = await ops('fleet', 'hosts', '--state', 'cordoned');
    expect(listed.stdout.trim().split('\n')).toHaveLength(2);
    expect(listed.stdout).toMatch(/^ro-a100-2\s.*CORDONED\s+api\s+new firmware$/m);

    const json = JSON.parse((await ops('--json', 'fleet', 'host', 'ro-a100-2')).stdout) as HostDetailView;
    expect(json).toMatchObject({ id: 'ro-a100-2', state: 'CORDONED', gpuCount: 4, podsOnHost: [] });
    expect((await ops('fleet', 'uncordon', 'ro-a100-2')).stdout).toMatch(/^state: READY$/m);
  });

  it("reports a host unhealthy and healthy again, and prints the fleet's capacity as a table", async () => {
    const sick = await ops('fleet', 'health', 'seed-a100-1', '--unhealthy', '--reason', 'fans failing');
    expect(sick.code).toBe(0);
    expect(sick.stdout).toMatch(/^state: UNHEALTHY$/m);
    expect(sick.stdout).toMatch(/^health: unhealthy: OPERATOR fans failing \(operator, since .*\)$/m);

    const capacity = await ops('fleet', 'capacity');
    expect(capacity.code).toBe(0);
    expect(capacity.stdout).toMatch(
      /^DATA CENTER\s+KIND\s+TYPE\s+HOSTS\s+TOTAL\s+ALLOCATED\s+FREE\s+UNAVAILABLE$/m,
    );
    expect(capacity.stdout).toMatch(new RegExp(`^EU-RO-1\\s+GPU\\s+${A100}\\s+2\\s+6\\s+0\\s+4\\s+2$`, 'm'));
    expect(capacity.stdout).toMatch(/^hosts: 1 READY, 0 CORDONED, 0 DRAINING, 1 UNHEALTHY, 0 GONE$/m);

    expect((await ops('fleet', 'health', 'seed-a100-1', '--healthy')).stdout).toMatch(/^health: healthy$/m);
  });

  it('drains a host with --wait, a progress line per change, until its last pod is gone; then removes it', async () => {
    const base = system.url('gateway');
    // Only ro-a100-2 takes the pod: the seed host is cordoned for the while.
    expect((await ops('fleet', 'cordon', 'seed-a100-1')).code).toBe(0);
    const pod = await api<PodV2View>(base, alice.key, 'POST', '/v2/pods', {
      name: 'on-the-host',
      image: 'runpod/base:0.6.2',
      gpu: { id: A100, count: 1 },
      disk: 10,
    });
    expect(pod.status).toBe(201);
    await until('the pod placed', async () => {
      const view = await api<PodV2View>(base, alice.key, 'GET', `/v2/pods/${pod.body.id}`);
      return view.body.machineId === 'ro-a100-2';
    });

    const drain = ops('fleet', 'drain', 'ro-a100-2', '--reason', 'retire', '--deadline', '600', '--wait');
    await until('the host draining', async () => {
      const host = await api<HostDetailView>(base, operatorKey, 'GET', '/v2/fleet/hosts/ro-a100-2');
      return host.body.state === 'DRAINING';
    });
    const early = await ops('fleet', 'remove', 'ro-a100-2');
    expect(early).toMatchObject({ code: 1, stderr: expect.stringMatching(/\(409\)/) });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await api(base, alice.key, 'DELETE', `/v2/pods/${pod.body.id}`)).status).toBe(204);

    const drained = await drain;
    expect(drained.code).toBe(0);
    expect(drained.stderr).toMatch(/^host ro-a100-2: draining, 1 pod left \(\d+\.\ds\)$/m);
    expect(drained.stderr).toMatch(/^host ro-a100-2: drained \(\d+\.\ds\)$/m);
    expect(drained.stdout).toMatch(/^state: DRAINING$/m);
    expect(drained.stdout).toMatch(/^drained: true$/m);

    const removed = await ops('fleet', 'remove', 'ro-a100-2');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(/^state: GONE$/m);
    expect((await ops('fleet', 'uncordon', 'seed-a100-1')).code).toBe(0);
  });
});
