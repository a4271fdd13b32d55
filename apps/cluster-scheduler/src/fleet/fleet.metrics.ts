import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { HOST_STATES } from '@app/contracts';
import { metricsRegistry } from '@app/observability';
import { FleetViewsRepository } from './fleet-views.repository.js';

/** Where the gauge reads the hosts per state from; null until the module is up (and after it is gone). */
let countHosts: (() => Promise<Record<string, number>>) | null = null;

/**
 * Hosts per shown state (READY, CORDONED, DRAINING, UNHEALTHY, GONE), counted in Postgres at each scrape: the
 * fleet is shared by the replicas, so any replica answers with the same numbers (the alerts take the max). A
 * failed count leaves the series as they were; `database_up` says why.
 */
export const fleetHosts = new Gauge({
  name: 'fleet_hosts',
  help: 'Hosts of the fleet per shown state (READY, CORDONED, DRAINING, UNHEALTHY, GONE), counted at the scrape',
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
  async collect() {
    const counts = await countHosts?.().catch(() => null);
    if (!counts) return;
    for (const state of HOST_STATES) this.set({ state }, counts[state] ?? 0);
  },
});

/** Points `fleet_hosts` at the fleet's repository while the module runs. */
@Injectable()
export class FleetMetrics implements OnModuleInit, OnModuleDestroy {
  constructor(private readonly views: FleetViewsRepository) {}

  onModuleInit(): void {
    countHosts = () => this.views.hostStates();
  }

  onModuleDestroy(): void {
    countHosts = null;
  }
}
