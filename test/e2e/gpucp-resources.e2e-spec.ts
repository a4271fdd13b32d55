import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ApiKeyList, CreatedApiKey, NetworkVolumeView, TeamView, TemplateV2View } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { A100, api, writeFleet } from './clusters-fixtures.js';
import { field, runGpucp, type Run } from './gpucp.e2e-helpers.js';

const FLEET = writeFleet([{ id: 'ro-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 8 }]);

/**
 * `gpucp templates`, `gpucp volumes` and `gpucp keys` run as processes against the gateway and the apps that own
 * templates (pod-lifecycle) and network volumes (cluster-scheduler), with a user's key only.
 */
describe('gpucp templates, volumes and keys', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let key: string;
  const gpucp = (args: string[], withKey = key): Promise<Run> =>
    runGpucp(system.url('gateway'), withKey, args);

  beforeAll(async () => {
    // endpoint-autoscaler: a template's delete asks it whether an endpoint still uses the template.
    const apps = ['gateway', 'cluster-scheduler', 'pod-lifecycle', 'endpoint-autoscaler'] as const;
    db = await createTestDatabase('gpucp_resources', { apps });
    system = await startApps({
      apps,
      databaseUrl: db.url,
      appEnv: {
        'cluster-scheduler': { FLEET_FILE: FLEET },
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated' },
        'endpoint-autoscaler': { AUTOSCALER_ENABLED: 'false' },
      },
    });
    key = (await userWithKey(db.url, 'tess')).key;
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('creates, lists, gets, updates and deletes a template, in v2 names', async () => {
    const registry = await api<{ id: string }>(system.url('gateway'), key, 'POST', '/v2/registries', {
      name: 'ghcr',
      username: 'bot',
      password: 's3cret',
    });
    const args = ['--args', 'python train.py', '--disk', '40', '--env', 'EPOCHS=3', '--port', '8888/http'];
    const created = await gpucp(
      ['templates', 'create', '--name', 'trainer', '--image', 'ghcr.io/acme/trainer:2', ...args].concat([
        '--volume',
        '50',
        '--registry',
        registry.body.id,
      ]),
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(/^image: ghcr\.io\/acme\/trainer:2$/m);
    expect(created.stdout).toMatch(/^mounts: \{"persistent":\{"size":50,"path":"\/workspace"\}\}$/m);
    const id = field(created.stdout, 'id');

    const table = await gpucp(['templates', 'list']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+IMAGE\s+DISK\s+SERVERLESS\s+PUBLIC$/);
    expect(table.stdout).toMatch(
      new RegExp(`^${id}\\s+trainer\\s+ghcr.io/acme/trainer:2\\s+40\\s+false\\s+false$`, 'm'),
    );

    const updated = await gpucp([
      'templates',
      'update',
      id,
      '--image',
      'ghcr.io/acme/trainer:3',
      '--no-registry',
    ]);
    expect(updated.code).toBe(0);
    const got = JSON.parse((await gpucp(['templates', 'get', id, '--json'])).stdout) as TemplateV2View;
    expect(got).toMatchObject({ image: 'ghcr.io/acme/trainer:3', registry: null, args: 'python train.py' });
    expect(got.env).toEqual({ EPOCHS: '3' });

    // The API's refusal, in its words, exit 1.
    const taken = await gpucp(['templates', 'create', '--name', 'trainer', '--image', 'x:1']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/^gpucp: Conflict \(409\): .*trainer/);

    expect(await gpucp(['templates', 'delete', id])).toEqual({
      code: 0,
      stdout: `deleted ${id}\n`,
      stderr: '',
    });
    expect(await gpucp(['templates', 'get', id])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/\(404\)/),
    });
  });

  it('lists the public catalog and reads one of its templates', async () => {
    const catalog = JSON.parse(
      (await gpucp(['templates', 'list', '--catalog', '--json'])).stdout,
    ) as TemplateV2View[];
    expect(catalog.map((t) => t.id)).toContain('runpod-ubuntu');
    expect(catalog.every((t) => t.public)).toBe(true);
    const community = await gpucp(['templates', 'list', '--source', 'community']);
    expect(community.stdout).toMatch(/^ID\s+NAME\s+IMAGE\s+DISK\s+SERVERLESS\s+PUBLIC\n$/);
    expect((await gpucp(['templates', 'get', 'runpod-ubuntu'])).stdout).toMatch(/^public: true$/m);
    expect((await gpucp(['templates', 'list', '--source', 'nowhere'])).code).toBe(2);
  });

  it('creates, renames, grows and deletes a network volume; refuses to shrink it in the API words', async () => {
    const created = await gpucp([
      'volumes',
      'create',
      '--name',
      'data',
      '--size',
      '100',
      '--data-center',
      'EU-RO-1',
    ]);
    expect(created.code).toBe(0);
    const id = field(created.stdout, 'id');
    expect(created.stdout).toMatch(/^dataCenterId: EU-RO-1$/m);

    const table = await gpucp(['volumes', 'list']);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+SIZE GB\s+DATA CENTER\s+CREATED$/m);
    expect(table.stdout).toMatch(new RegExp(`^${id}\\s+data\\s+100\\s+EU-RO-1\\s+\\S+$`, 'm'));

    expect((await gpucp(['volumes', 'update', id, '--name', 'data-2'])).stdout).toMatch(/^name: data-2$/m);
    expect((await gpucp(['volumes', 'resize', id, '200'])).stdout).toMatch(/^size: 200$/m);
    const smaller = await gpucp(['volumes', 'resize', id, '50']);
    expect(smaller.code).toBe(1);
    expect(smaller.stderr).toMatch(/^gpucp: .*\(400\): /);
    expect((await gpucp(['volumes', 'update', id])).stderr).toMatch(/\(422\)/);
    const got = JSON.parse((await gpucp(['volumes', 'get', id, '--json'])).stdout) as NetworkVolumeView;
    expect(got).toMatchObject({ id, name: 'data-2', size: 200 });

    expect(JSON.parse((await gpucp(['volumes', 'delete', id, '--json'])).stdout)).toEqual({
      id,
      deleted: true,
    });
    expect(JSON.parse((await gpucp(['volumes', 'list', '--json'])).stdout)).toEqual([]);
  });

  it('creates a key, printing its secret once; the key works, is listed without it, and is revoked', async () => {
    const created = await gpucp(['keys', 'create', '--name', 'ci', '--scope', 'read']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const secret = /^(cpk_\S+)$/m.exec(created.stdout)![1];
    expect(created.stdout).toContain(
      'API key (shown this once only; store it now, it cannot be read again):',
    );
    expect(created.stdout.split(secret)).toHaveLength(2);
    expect(created.stdout).toMatch(/^scope: read$/m);
    const id = field(created.stdout, 'id');

    // The new key is a real one: it reads, and a read key may not write (the API's 403).
    expect((await gpucp(['volumes', 'list'], secret)).code).toBe(0);
    const refused = await gpucp(
      ['volumes', 'create', '--name', 'x', '--size', '1', '--data-center', 'EU-RO-1'],
      secret,
    );
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/^gpucp: forbidden \(403\): /) });

    const list = await gpucp(['keys', 'list']);
    expect(list.stdout).not.toContain(secret);
    expect(list.stdout).toMatch(new RegExp(`^\\s+${id}\\s+ci\\s+cpk_\\S+\\s+read\\s+-\\s+-\\s+\\S+$`, 'm'));
    expect(list.stdout).toMatch(/^\*\s+key_\S+\s+\S+\s+cpk_\S+\s+full\s/m);
    const listed = JSON.parse((await gpucp(['keys', 'list', '--json'])).stdout) as ApiKeyList;
    expect(listed.apiKeys.map((k) => k.id)).toContain(id);

    expect((await gpucp(['keys', 'revoke', id])).stdout).toBe(`revoked ${id}\n`);
    expect((await gpucp(['volumes', 'list'], secret)).stderr).toMatch(/authentication failed \(401\)/);
  });

  it("makes a team's key and an endpoints key; refuses what the API refuses", async () => {
    const team = await api<TeamView>(system.url('gateway'), key, 'POST', '/v2/teams', { name: 'lab' });
    const teamKey = await gpucp([
      'keys',
      'create',
      '--name',
      'lab',
      '--scope',
      'full',
      '--team',
      team.body.id,
      '--json',
    ]);
    expect(JSON.parse(teamKey.stdout) as CreatedApiKey).toMatchObject({
      teamId: team.body.id,
      scope: 'full',
    });
    expect((JSON.parse(teamKey.stdout) as CreatedApiKey).key).toMatch(/^cpk_/);

    const endpoints = await gpucp([
      'keys',
      'create',
      '--name',
      'jobs',
      '--scope',
      'endpoints',
      '--endpoint',
      'ep1',
    ]);
    expect(endpoints.stdout).toMatch(/^endpointIds: \["ep1"\]$/m);
    const missing = await gpucp(['keys', 'create', '--name', 'jobs-2', '--scope', 'endpoints']);
    expect(missing).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^gpucp: .*\(400\): .*endpointIds/),
    });
    expect((await gpucp(['keys', 'create', '--name', 'x', '--scope', 'worker'])).code).toBe(2);
    expect((await gpucp(['keys', 'revoke', 'key_unknown'])).stderr).toMatch(/\(404\)/);
  });
});
