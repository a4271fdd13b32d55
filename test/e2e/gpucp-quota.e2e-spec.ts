import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CreatedApiKey, QuotaListView, QuotaView, TeamView } from '@app/contracts';
import { keysCli, userWithKey, type TestKey } from '../support/accounts.js';
import { ROOT } from '../support/paths.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { api } from './clusters-fixtures.js';

const CLI = join(ROOT, 'dist/tools/gpucp/gpucp.cli.js');
const A4000 = 'NVIDIA RTX A4000';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `gpucp quota` run as a process against the gateway and the cluster scheduler, as an operator and a team's member
 * would run it: configured only through GPUCP_API_URL and GPUCP_API_KEY.
 */
describe('gpucp quota', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let operatorKey: string;
  let member: TestKey;
  let memberTeamKey: string;
  let team: TeamView;

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

  beforeAll(async () => {
    db = await createTestDatabase('gpucp_quota');
    system = await startApps({ databaseUrl: db.url, apps: ['gateway', 'cluster-scheduler'] });
    member = await userWithKey(db.url, 'mia');
    await keysCli(db.url, ['user', 'create', 'ops']);
    operatorKey = (
      JSON.parse(await keysCli(db.url, ['key', 'create', 'ops', '--scope', 'operator', '--json'])) as TestKey
    ).key;
    const base = system.url('gateway');
    team = (await api<TeamView>(base, member.key, 'POST', '/v2/teams', { name: 'robotics' })).body;
    memberTeamKey = (
      await api<CreatedApiKey>(base, member.key, 'POST', '/v2/account/api-keys', {
        name: 'mia for robotics',
        scope: 'full',
        teamId: team.id,
      })
    ).body.key;
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it("sets a team's quota from flags as an operator; a member is refused, a missing flag is a usage error", async () => {
    const flags = ['--team', team.id, '--gpu-type', A4000, '--gpus', '4', '--borrowing-limit', '2'];
    const usage = await gpucp(operatorKey, ['quota', 'set', '--team', team.id, '--gpus', '4']);
    expect(usage).toMatchObject({ code: 2, stderr: expect.stringMatching(/give --gpu-type and --gpus/) });
    const refused = await gpucp(member.key, ['quota', 'set', ...flags]);
    expect(refused).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/forbidden \(403\).*operators'/),
    });

    const set = await gpucp(operatorKey, ['quota', 'set', ...flags, '--cohort', 'labs']);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(new RegExp(`^account: robotics \\(${team.id}\\)$`, 'm'));
    expect(set.stdout).toMatch(/^source: account$/m);
    expect(set.stdout).toMatch(/^cohort: labs$/m);
    expect(set.stdout).toMatch(/^GPU TYPE\s+DATA CENTER\s+GPUS\s+BORROW\s+IN USE\s+BORROWED\s+LENT$/m);
    expect(set.stdout).toMatch(new RegExp(`^${A4000}\\s+any\\s+4\\s+2\\s+0\\s+0\\s+0$`, 'm'));
  });

  it('reads it as a member: the team key without --team, the personal key with it', async () => {
    const own = await gpucp(memberTeamKey, ['--json', 'quota', 'get']);
    expect(own.code).toBe(0);
    expect(JSON.parse(own.stdout) as QuotaView).toMatchObject({
      accountId: team.id,
      source: 'account',
      cohort: 'labs',
      limits: [{ gpuTypeId: A4000, dataCenterId: null, gpus: 4, borrowingLimit: 2 }],
    });
    const byTeam = await gpucp(member.key, ['--json', 'quota', 'get', '--team', team.id]);
    expect(JSON.parse(byTeam.stdout)).toEqual(JSON.parse(own.stdout));
    const history = await gpucp(member.key, ['quota', 'history', '--team', team.id, '--window', '600']);
    expect(history).toMatchObject({ code: 0, stdout: expect.stringMatching(/^AT\s+GPU TYPE/) });
    const badWindow = await gpucp(member.key, ['quota', 'history', '--team', team.id, '--window', '30']);
    expect(badWindow).toMatchObject({ code: 1, stderr: expect.stringMatching(/windowSeconds must be/) });
  });

  it('sets the default from a JSON file and lists every quota; clears both', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gpucp-quota-')), 'default.json');
    writeFileSync(file, JSON.stringify({ limits: [{ gpuTypeId: A4000, gpus: 1, dataCenterId: 'EU-RO-1' }] }));
    const set = await gpucp(operatorKey, ['quota', 'default', 'set', '--file', file]);
    expect(set).toMatchObject({ code: 0, stdout: expect.stringMatching(/^account: default \(\*\)$/m) });
    const list = await gpucp(operatorKey, ['quota', 'list']);
    expect(list.stdout.split('\n')[0]).toMatch(/^ACCOUNT\s+COHORT\s+GPU TYPE\s+DATA CENTER\s+GPUS/);
    expect(list.stdout).toMatch(new RegExp(`^default\\s+-\\s+${A4000}\\s+EU-RO-1\\s+1\\b`, 'm'));
    expect(list.stdout).toMatch(new RegExp(`^robotics\\s+labs\\s+${A4000}\\s+any\\s+4\\b`, 'm'));

    expect((await gpucp(operatorKey, ['quota', 'clear', '--team', team.id])).stdout).toBe(
      `cleared the quota of ${team.id}\n`,
    );
    expect((await gpucp(operatorKey, ['quota', 'default', 'clear'])).code).toBe(0);
    const none = await gpucp(operatorKey, ['--json', 'quota', 'list']);
    expect(JSON.parse(none.stdout) as QuotaListView).toEqual({ default: null, quotas: [] });
    const unlimited = await gpucp(memberTeamKey, ['quota', 'get']);
    expect(unlimited.stdout).toMatch(/^source: none$/m);
    expect(unlimited.stdout).toMatch(/^limits: none \(unlimited\)$/m);
  });
});
