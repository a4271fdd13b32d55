import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { LbSubjects, type LbLoadReport } from '@app/contracts';
import { NatsClient } from '@app/messaging';
import type { PlanLbLoad } from './scaling-plan.js';

/** Until a gateway has reported, assume it reports this often. */
const DEFAULT_REPORT_MS = 500;
/** A report is trusted this many of its gateway's intervals: then that gateway is taken to be gone. */
const FRESH_INTERVALS = 3;

/**
 * The requests the gateway replicas hold for load-balancing endpoints, from their `lb.load` reports on core NATS
 * (docs/adr/0026): the latest report of each gateway, summed. Every replica listens (any may become the leader);
 * right after it starts it does not know the load until it heard every gateway once, so until then `load`
 * answers null and the plan leaves LB endpoints as they are.
 */
@Injectable()
export class LbLoadBoard implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('autoscaler');
  private readonly reports = new Map<string, { report: LbLoadReport; at: number }>();
  private subscription?: Subscription;
  private listeningSince = Number.POSITIVE_INFINITY;

  constructor(private readonly nats: NatsClient) {}

  onModuleInit(): void {
    this.listeningSince = Date.now();
    this.subscription = this.nats.nc.subscribe(this.nats.subject(LbSubjects.load), {
      callback: (error, message) => {
        if (error) return;
        try {
          this.received(message.json<LbLoadReport>());
        } catch {
          this.logger.warn(`unreadable ${LbSubjects.load} report ignored`);
        }
      },
    });
  }

  beforeApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  received(report: LbLoadReport, now = Date.now()): void {
    if (typeof report?.gatewayId !== 'string' || !Array.isArray(report.endpoints)) return;
    this.reports.set(report.gatewayId, { report, at: now });
  }

  /** The endpoint's load over every gateway heard from lately; null while this process may not know it yet. */
  load(endpointId: string, now = Date.now()): PlanLbLoad | null {
    if (now - this.listeningSince < FRESH_INTERVALS * this.longestInterval()) return null;
    for (const [gatewayId, { report, at }] of this.reports) {
      if (!isFresh(report, at, now)) this.reports.delete(gatewayId);
    }
    return sumLoad([...this.reports.values()], endpointId, now);
  }

  private longestInterval(): number {
    let longest = DEFAULT_REPORT_MS;
    for (const { report } of this.reports.values()) longest = Math.max(longest, report.intervalMs);
    return longest;
  }
}

function isFresh(report: LbLoadReport, at: number, now: number): boolean {
  return now - at <= FRESH_INTERVALS * Math.max(report.intervalMs, DEFAULT_REPORT_MS);
}

/**
 * One endpoint's load, summed over the gateways' latest reports that are still fresh (a report older than three
 * of its gateway's intervals is of a gateway that went away, and its requests with it).
 */
export function sumLoad(
  reports: readonly { report: LbLoadReport; at: number }[],
  endpointId: string,
  now: number,
): PlanLbLoad {
  const total: PlanLbLoad = { inFlight: 0, waiting: 0, busyWorkerIds: [] };
  const busy = new Set<string>();
  for (const { report, at } of reports) {
    if (!isFresh(report, at, now)) continue;
    const endpoint = report.endpoints.find((e) => e.endpointId === endpointId);
    if (!endpoint) continue;
    total.inFlight += endpoint.inFlight;
    total.waiting += endpoint.waiting;
    for (const [podId, n] of Object.entries(endpoint.workers)) if (n > 0) busy.add(podId);
  }
  total.busyWorkerIds = [...busy].sort();
  return total;
}
