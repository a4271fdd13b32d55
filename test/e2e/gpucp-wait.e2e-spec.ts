import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClusterView } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { A100, writeFleet } from './clusters-fixtures.js';
import { field, runGpucp, type Run } from './gpucp.e2e-helpers.js';

const FLEET = writeFleet(
  [1, 2].map((n) => ({ id: `ro-a100-${n}`, dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 8 })),
);

/** The progress lines (stderr, not a terminal: one per change of state) that name `state`. */
const linesWith = (run: Run, state: RegExp) => run.stderr.split('\n').filter((line) => state.test(line));

/**
 * `--wait` (pods create/start/restart, clusters create; jobs run and fleet drain share the same wait): progress on
 * stderr, one line per state, the final state once, then the record on stdout once.
 */
describe('gpucp --wait', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let key: string;
  const gpucp = (args: string[]): Promise<Run> => runGpucp(system.url('gateway'), key, args);

  beforeAll(async () => {
    const apps = ['gateway', 'cluster-scheduler', 'pod-lifecycle'] as const;
    db = await createTestDatabase('gpucp_wait', { apps });
    system = await startApps({
      apps,
      databaseUrl: db.url,
      appEnv: {
        'cluster-scheduler': { FLEET_FILE: FLEET },
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '300', SIM_START_MS: '300' },
      },
    });
    key = (await userWithKey(db.url, 'walt')).key;
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('pods create --wait and restart --wait print the final state once', async () => {
    const created = await gpucp([
      'pods',
      'create',
      '--name',
      'w',
      '--image',
      'runpod/base:0.6.2',
      '--gpu',
      A100,
      '--wait',
      '--timeout',
      '60',
    ]);
    expect(created.code).toBe(0);
    const podId = field(created.stdout, 'id');
    // Progress before the end, then RUNNING exactly once, last; the pod once on stdout.
    expect(created.stderr).toMatch(
      new RegExp(`^pod ${podId}: (PROVISIONING|STARTING) \\(\\d+\\.\\ds\\)$`, 'm'),
    );
    expect(linesWith(created, /: RUNNING \(/)).toEqual([created.stderr.trim().split('\n').at(-1)]);
    expect(created.stdout.match(/^status: RUNNING$/gm)).toHaveLength(1);

    const restarted = await gpucp(['pods', 'restart', podId, '--wait', '--timeout', '60']);
    expect(restarted.code).toBe(0);
    expect(linesWith(restarted, /: RUNNING \(/)).toHaveLength(1);
    expect(restarted.stdout.match(/^id: /gm)).toHaveLength(1);
    expect((await gpucp(['pods', 'terminate', podId])).code).toBe(0);
  });

  it('clusters create --wait follows the members to RUNNING and prints the final count once', async () => {
    const run = await gpucp([
      'clusters',
      'create',
      '--name',
      'c',
      '--gpu',
      A100,
      '--pods',
      '2',
      '--wait',
      '--timeout',
      '60',
    ]);
    expect(run).toMatchObject({ code: 0 });
    const clusterId = field(run.stdout, 'id');
    expect(linesWith(run, /: 2\/2 pods RUNNING \(/)).toEqual([`${run.stderr.trim().split('\n').at(-1)}`]);
    expect(run.stderr).toMatch(
      new RegExp(`^cluster ${clusterId}: [01]/2 pods RUNNING \\(\\d+\\.\\ds\\)$`, 'm'),
    );

    const list = JSON.parse((await gpucp(['clusters', 'list', '--json'])).stdout) as ClusterView[];
    expect(list.map((c) => [c.id, c.pods.total])).toEqual([[clusterId, 2]]);
    expect((await gpucp(['clusters', 'list'])).stdout).toMatch(
      new RegExp(`^${clusterId}\\s+c\\s+TRAINING\\s+2\\s`, 'm'),
    );
    expect((await gpucp(['clusters', 'delete', clusterId])).code).toBe(0);
  });
});
