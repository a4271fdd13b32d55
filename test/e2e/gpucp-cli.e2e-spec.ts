import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { PodLogLine, PodV2View, SpendStatus } from '@app/contracts';
import { ROOT } from '../support/paths.js';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { A100, writeFleet } from './clusters-fixtures.js';
import { startServerlessSystem, stopServerlessSystem } from './serverless-system.e2e-helpers.js';

const CLI = join(ROOT, 'dist/tools/gpucp/gpucp.cli.js');
const FLEET = writeFleet([{ id: 'ro-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 8 }]);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The user CLI `gpucp` run as a process against the five apps (simulated runtime), configured only through
 * GPUCP_API_URL and GPUCP_API_KEY (or flags), as a user would run it.
 */
describe('gpucp, the user CLI', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let env: NodeJS.ProcessEnv;

  const gpucp = (args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [CLI, ...args],
        { env: { ...env, ...extraEnv } },
        (error, stdout, stderr) => {
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
        },
      );
    });

  beforeAll(async () => {
    let aliceKey: string;
    ({ db, system, aliceKey } = await startServerlessSystem('gpucp_cli', {
      'cluster-scheduler': { FLEET_FILE: FLEET },
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '300', SIM_START_MS: '300' },
      'endpoint-autoscaler': { AUTOSCALER_ENABLED: 'false' },
    }));
    env = { PATH: process.env.PATH, GPUCP_API_URL: system.url('gateway'), GPUCP_API_KEY: aliceKey };
  });

  afterAll(() => stopServerlessSystem({ db, system }));

  let podId: string;

  it('creates a pod and waits until it is RUNNING, with progress on stderr and the pod on stdout', async () => {
    const run = await gpucp(
      ['pods', 'create', '--name', 'cli-pod', '--image', 'runpod/base:0.6.2'].concat([
        '--gpu',
        A100,
        '--disk',
        '10',
        '--wait',
        '--timeout',
        '60',
      ]),
    );
    expect(run).toMatchObject({ code: 0 });
    // Not a terminal: one progress line per state, ending with RUNNING.
    expect(run.stderr).toMatch(/^pod \S+: (PROVISIONING|STARTING) \(\d+\.\ds\)$/m);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^pod \S+: RUNNING \(\d+\.\ds\)$/);
    expect(run.stdout).toMatch(/^status: RUNNING$/m);
    podId = /^id: (\S+)$/m.exec(run.stdout)![1];

    const list = await gpucp(['pods', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(list.stderr).toBe('');
    const pods = JSON.parse(list.stdout) as PodV2View[];
    expect(pods.map((p) => [p.id, p.name, p.status])).toEqual([[podId, 'cli-pod', 'RUNNING']]);
    const table = await gpucp(['pods', 'list']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+STATUS\s+GPU\s+COST\/HR\s+IMAGE$/);
  });

  it("prints a pod's logs, and follows them until the pod is terminated", async () => {
    const page = await gpucp(['logs', podId, '--json']);
    expect(page.code).toBe(0);
    const lines = page.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as PodLogLine);
    expect(lines.some((l) => l.stream === 'system')).toBe(true);

    const follower = spawn(process.execPath, [CLI, 'logs', podId, '--follow', '--since', '600'], { env });
    let out = '';
    follower.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => follower.on('exit', resolve));
    const deadline = Date.now() + 10_000;
    while (!out.includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(out).toMatch(/^\S+ system /m);
    expect((await gpucp(['pods', 'terminate', podId])).stdout).toBe(`terminated ${podId}\n`);
    expect(await exited).toBe(0);
  });

  it('shows usage and the spend limit, and sets its own limit', async () => {
    const usage = await gpucp([
      'usage',
      '--bucket',
      'hour',
      '--start',
      new Date(Date.now() - 3_600_000).toISOString(),
    ]);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toMatch(/^TIME\s+PODS\s+SERVERLESS\s+CLUSTERS\s+STORAGE\s+TOTAL$/m);
    expect(usage.stdout).toMatch(/^total \d/m);
    const limit = await gpucp(['usage', 'limit', '25', '--json']);
    expect(limit.code).toBe(0);
    expect(JSON.parse(limit.stdout) as SpendStatus).toMatchObject({
      userLimit: 25,
      monthlyLimit: 25,
      reached: false,
    });
  });

  it('answers a refusal with the API detail and exit 1, and a bad key with a clear message', async () => {
    const missing = await gpucp(['pods', 'get', 'no-such-pod']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^gpucp: Not Found \(404\): /);

    const badKey = await gpucp(['pods', 'list'], { GPUCP_API_KEY: 'cpk_not_a_real_key' });
    expect(badKey.code).toBe(1);
    expect(badKey.stdout).toBe('');
    expect(badKey.stderr).toMatch(
      /^gpucp: authentication failed \(401\): .+\. Check the API key \(GPUCP_API_KEY or --api-key\)\n$/,
    );
    const flagWins = await gpucp(['--api-key', 'cpk_other_bad_key', 'endpoints', 'list']);
    expect(flagWins.code).toBe(1);
    expect(flagWins.stderr).toMatch(/authentication failed \(401\)/);

    const noKey = await gpucp(['pods', 'list'], { GPUCP_API_KEY: '' });
    expect(noKey).toMatchObject({
      code: 2,
      stderr: 'gpucp: no API key: set GPUCP_API_KEY or pass --api-key cpk_…\n',
    });
    expect((await gpucp(['pods', 'frobnicate'])).code).toBe(2);
  });
});
