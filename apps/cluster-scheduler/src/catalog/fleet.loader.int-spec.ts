import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { appDataSourceOptions } from '@app/database';
import { startupTasks } from '@app/observability';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import { ClusterSchedulerConfig } from '../cluster-scheduler.config.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import { CatalogRepository } from './catalog.repository.js';
import { FleetLoader } from './fleet.loader.js';
import { HostEntity } from './host.entity.js';
import { StoragePriceEntity } from './storage-price.entity.js';

/**
 * The fleet load against real Postgres: a start-up task, idempotent by content; a new file's catalog applied, its
 * hosts only seeding an empty fleet.
 */

let db: TestDatabase;
let dataSource: DataSource;
let dir: string;

const gpuType = (id: string, memoryInGb: number) => ({
  id,
  displayName: id.replace('NVIDIA ', ''),
  manufacturer: 'Nvidia',
  memoryInGb,
  maxCount: 8,
  tier: memoryInGb === 24 ? 'ADA_24' : 'AMPERE_48',
});

function fleetFile(name: string, hostIds: string[], gpuTypes = [gpuType('NVIDIA L4', 24)]): string {
  const path = join(dir, name);
  const fleet = {
    version: 1,
    gpuTypes,
    cpuTypes: [],
    dataCenters: [{ id: 'US-TX-3', name: 'Texas 3', region: 'US' }],
    hosts: hostIds.map((id, i) => ({
      id,
      dataCenterId: 'US-TX-3',
      gpuTypeId: 'NVIDIA L4',
      gpuCount: 8,
      cpuTypeId: null,
      cpuSlots: 0,
      publicIp: `10.0.0.${i + 1}`,
      portRange: [20000, 20999],
    })),
  };
  writeFileSync(path, JSON.stringify(fleet));
  return path;
}

function loader(file: string): FleetLoader {
  const config = Object.assign(new ClusterSchedulerConfig(), { FLEET_FILE: file });
  return new FleetLoader(config, new CatalogRepository(dataSource));
}

async function hosts(): Promise<string[]> {
  const rows = await dataSource.manager.find(HostEntity, { order: { id: 'ASC' } });
  return rows.map((h) => `${h.id} ${h.schedulingState} ${h.source}`);
}

beforeAll(async () => {
  db = await createTestDatabase('fleet_loader', { apps: ['cluster-scheduler'] });
  dataSource = new DataSource(appDataSourceOptions(DATA_SOURCE_SPEC, db.url, 2));
  await dataSource.initialize();
  dir = mkdtempSync(join(tmpdir(), 'fleet-loader-'));
});

afterAll(async () => {
  await dataSource?.destroy();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('FleetLoader', () => {
  it('loads the fleet as the start-up task "fleet", which keeps the app unready until it is done', async () => {
    loader(fleetFile('first.json', ['h-1', 'h-2'])).onModuleInit();
    expect(startupTasks.unfinished()).toEqual(['fleet']);
    await startupTasks.settled();
    expect(startupTasks.failed()).toEqual([]);
    expect(await hosts()).toEqual(['h-1 READY file', 'h-2 READY file']);
  });

  it('writes nothing when a file with the same content was loaded before', async () => {
    expect(await loader(fleetFile('same-again.json', ['h-1', 'h-2'])).load()).toBe(false);
    expect(await hosts()).toEqual(['h-1 READY file', 'h-2 READY file']);
  });

  it("applies a changed file's catalog, but its hosts only seed an empty fleet: they change by command", async () => {
    const changed = fleetFile(
      'changed.json',
      ['h-2', 'h-3'],
      [gpuType('NVIDIA L4', 24), gpuType('NVIDIA A40', 48)],
    );
    expect(await loader(changed).load()).toBe(true);
    const catalog = new CatalogRepository(dataSource);
    expect((await catalog.gpuTypes()).map((g) => g.id)).toEqual(['NVIDIA L4', 'NVIDIA A40']);
    expect(await hosts()).toEqual(['h-1 READY file', 'h-2 READY file']);
  });

  it('stores the prices, defaults filled in, and what a placement is charged at', async () => {
    const catalog = new CatalogRepository(dataSource);
    expect((await catalog.findGpuType('NVIDIA L4'))?.pricePerHr).toBe(0.3); // 24 GB × 0.0125
    expect(await dataSource.manager.find(StoragePriceEntity, { order: { kind: 'ASC' } })).toEqual([
      { kind: 'containerDisk', perGbHr: 0.00014 },
      { kind: 'networkVolume', perGbHr: 0.0001 },
    ]);
    const placed = { gpuTypeId: 'NVIDIA L4', gpuCount: 4, cpuTypeId: null, hostId: 'h-2' };
    expect(await catalog.rates(placed, dataSource.manager)).toEqual({
      computePerHr: 1.2,
      containerDiskPerGbHr: 0.00014,
    });
  });

  it('fails on a file that cannot be read or is invalid, naming it', async () => {
    await expect(loader(join(dir, 'missing.json')).load()).rejects.toThrow(
      /FLEET_FILE .*missing.json cannot be read/,
    );
    const invalid = join(dir, 'invalid.json');
    writeFileSync(
      invalid,
      JSON.stringify({ version: 1, gpuTypes: [], cpuTypes: [], dataCenters: [], hosts: [] }),
    );
    await expect(loader(invalid).load()).rejects.toThrow(/invalid.json is invalid/);
  });
});
