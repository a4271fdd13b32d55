import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AdvisoryLeadership } from '@app/database';
import { Clock } from '../clock.js';
import { EndpointAutoscalerConfig } from '../endpoint-autoscaler.config.js';
import { EndpointsRepository } from '../endpoints/endpoints.repository.js';
import { autoscalerMetrics } from './autoscaler.metrics.js';
import { EndpointReconciler } from './endpoint-reconciler.js';
import { TickSnapshots } from './tick-snapshot.js';
import { WaitReasonTracker } from './wait-reason-tracker.js';

/**
 * The autoscaler's control loop: every AUTOSCALER_TICK_MS it reconciles every endpoint from one snapshot of all
 * of them (docs/adr/0044; one endpoint's failure is logged and retried on the next tick). A tick never overlaps the previous one. With several
 * replicas only the leader ticks (a Postgres advisory lock, LEADER_CHECK_MS): two loops would both start workers.
 */
@Injectable()
export class ControlLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('autoscaler');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private readonly leadership: AdvisoryLeadership;

  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly snapshots: TickSnapshots,
    private readonly reconciler: EndpointReconciler,
    private readonly waitReasons: WaitReasonTracker,
    private readonly config: EndpointAutoscalerConfig,
    private readonly clock: Clock,
  ) {
    this.leadership = new AdvisoryLeadership({
      databaseUrl: config.DATABASE_URL,
      name: 'endpoint-autoscaler/control-loop',
      checkMs: config.LEADER_CHECK_MS,
      log: (line) => this.logger.log(line),
    });
  }

  onApplicationBootstrap(): void {
    if (!this.config.AUTOSCALER_ENABLED) {
      this.logger.log('AUTOSCALER_ENABLED=false: the control loop is off');
      return;
    }
    if (this.config.REPLAY_MODE) {
      this.logger.log(
        'REPLAY_MODE: the control loop is off (its commands are replayed from the command log)',
      );
      return;
    }
    this.logger.log(`control loop every ${this.config.AUTOSCALER_TICK_MS} ms, on the leading replica`);
    this.leadership.start();
    // The first tick as soon as the first check says whether this replica leads.
    void this.leadership.settled().then(() => this.schedule(0));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.leadership.stop();
  }

  /**
   * One pass over every endpoint (exposed for tests and benchmarks): one snapshot of all of them (tick-snapshot.ts:
   * a fixed number of reads, whatever their number), a plan for each, the wait reasons, then the plans that change
   * something applied concurrently. One endpoint's failure is logged and retried on the next tick; a snapshot that
   * cannot be read fails the whole tick, retried the same way.
   */
  async tick(): Promise<void> {
    const started = performance.now();
    const endpoints = await this.endpoints.listAll();
    const now = this.clock.now();
    const snapshots = await this.snapshots.take(endpoints, now);
    const planned = endpoints.map((endpoint) => {
      const snapshot = snapshots.get(endpoint.id)!;
      try {
        return { endpoint, snapshot, plan: this.reconciler.plan(endpoint, snapshot, now) };
      } catch (error) {
        return { endpoint, snapshot, error: error as Error };
      }
    });
    // Why their jobs wait, from the same snapshot (before the applies, which may fail).
    await this.waitReasons.track(
      planned.map(({ endpoint, snapshot }) => ({ endpoint, ...snapshot })),
      now,
    );
    const results = await Promise.allSettled(
      planned.map(({ endpoint, snapshot, plan, error }) =>
        plan ? this.reconciler.apply(endpoint, snapshot, plan, now) : Promise.reject(error),
      ),
    );
    results.forEach((result, i) => {
      if (result.status === 'rejected') {
        autoscalerMetrics.tickErrors.inc();
        const reason = result.reason as Error;
        this.logger.warn(
          `endpoint ${endpoints[i].id}: reconcile failed (retried next tick): ${reason.message}`,
        );
      }
    });
    autoscalerMetrics.tickSeconds.observe((performance.now() - started) / 1000);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      if (!this.leadership.isLeader) return this.schedule(this.config.AUTOSCALER_TICK_MS);
      this.running = this.tick()
        .catch((error: Error) => this.logger.warn(`control loop tick failed: ${error.message}`))
        .finally(() => this.schedule(this.config.AUTOSCALER_TICK_MS));
    }, delayMs);
  }
}
