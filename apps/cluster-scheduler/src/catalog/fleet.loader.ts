import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ClusterSchedulerConfig } from '../cluster-scheduler.config.js';
import { CatalogRepository } from './catalog.repository.js';
import { parseFleet } from './fleet-file.js';

/**
 * Loads the fleet file into the scheduler's tables at boot, before any command is consumed. Idempotent by
 * content hash (booting again with the same file writes nothing) and one set-based statement for the hosts,
 * so 10,000 hosts load in well under a second. See docs/adr/0005-fleet-and-placement.md.
 */
@Injectable()
export class FleetLoader implements OnModuleInit {
  private readonly logger = new Logger('fleet');

  constructor(
    private readonly config: ClusterSchedulerConfig,
    private readonly catalog: CatalogRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    const path = resolve(this.config.FLEET_FILE);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new Error(`FLEET_FILE ${path} cannot be read: ${(error as Error).message}`, { cause: error });
    }
    const started = Date.now();
    const fleet = parseFleet(text, path);
    const sha256 = createHash('sha256').update(text).digest('hex');
    const loaded = await this.catalog.loadFleet(fleet, sha256, new Date());
    this.logger.log(
      loaded
        ? `loaded fleet ${path}: ${fleet.dataCenters.length} data centers, ${fleet.gpuTypes.length} GPU types, ` +
            `${fleet.hosts.length} hosts in ${Date.now() - started} ms`
        : `fleet ${path} (${fleet.hosts.length} hosts) is already loaded`,
    );
  }
}
