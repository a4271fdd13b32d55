import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { startupTasks } from '@app/observability';
import { ClusterSchedulerConfig } from '../cluster-scheduler.config.js';
import { CatalogRepository } from './catalog.repository.js';
import { parseFleet } from './fleet-file.js';

/**
 * Loads the fleet file into the scheduler's tables at boot, as a start-up task: the app listens meanwhile, but
 * /readyz answers 503 and no command is consumed until it is done (the consumers start after the start-up tasks),
 * and a file that cannot be read or is invalid ends the process. The file's catalog (GPU and CPU types, data
 * centers, prices) is loaded every time it changes; its hosts only seed an empty fleet, with one set-based
 * statement: after that the fleet is live state changed by `fleet.cmd.*` commands (operators, the Kubernetes node
 * watch), which a rebuild replays (docs/adr/0039-live-fleet.md). Idempotent by content hash, checked before the
 * file is parsed: booting again with the same file costs one read, one hash and one query (validating 10,000
 * hosts would take seconds). See docs/adr/0005-fleet-and-placement.md.
 */
@Injectable()
export class FleetLoader implements OnModuleInit {
  private readonly logger = new Logger('fleet');

  constructor(
    private readonly config: ClusterSchedulerConfig,
    private readonly catalog: CatalogRepository,
  ) {}

  onModuleInit(): void {
    void startupTasks.run('fleet', () => this.load());
  }

  /** Reads the fleet file and loads it unless the same content is loaded already; true when it wrote anything. */
  async load(): Promise<boolean> {
    const path = resolve(this.config.FLEET_FILE);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new Error(`FLEET_FILE ${path} cannot be read: ${(error as Error).message}`, { cause: error });
    }
    const started = Date.now();
    const sha256 = createHash('sha256').update(text).digest('hex');
    if (await this.catalog.fleetLoaded(sha256)) {
      this.logger.log(`fleet ${path} is already loaded (same content)`);
      return false;
    }
    const fleet = parseFleet(text, path);
    const loaded = await this.catalog.loadFleet(fleet, sha256, new Date());
    this.logger.log(
      !loaded
        ? `fleet ${path} (${fleet.hosts.length} hosts) is already loaded`
        : `loaded fleet ${path}: ${fleet.dataCenters.length} data centers, ${fleet.gpuTypes.length} GPU types, ` +
            (loaded.seeded
              ? `${loaded.seeded} hosts seeded`
              : `its ${fleet.hosts.length} hosts ignored (the fleet has hosts already; they change by command)`) +
            ` in ${Date.now() - started} ms`,
    );
    return loaded !== null;
  }
}
