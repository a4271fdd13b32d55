import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import {
  LbSubjects,
  PodStatus,
  type LbLoadReport,
  type LbWorkerAnnouncement,
  type LbWorkerState,
} from '@app/contracts';
import { NatsClient } from '@app/messaging';
import { PodLifecycleConfig } from '../pod-lifecycle.config.js';
import { drainDone, pingState } from './lb-ping.js';
import { ObservationReporter } from './observation-reporter.js';
import { RUNTIME_DRIVER, type LbWorkerAddress, type RuntimeDriver } from './runtime-driver.js';

interface Health {
  generation: number;
  /** Since when every `/ping` failed (null: the last one was 200 or 204). */
  unhealthySince: number | null;
  /** The run was reported ERROR already (once per run). */
  reported: boolean;
}

/** Until a gateway has reported, assume it reports this often. */
const DEFAULT_REPORT_MS = 500;

/**
 * The health of the load-balancing workers this replica runs (docs/adr/0026): every LB_PING_INTERVAL_MS it asks
 * each one `GET /ping` on PORT_HEALTH and announces the answer to every gateway on core NATS (`lb.worker-state`).
 * A worker unhealthy for LB_UNHEALTHY_AFTER_MS is reported ERROR (a recorded observation): the autoscaler
 * terminates and replaces it. Before a worker is stopped it is drained: announced `draining` (the gateways send it
 * nothing new), then stopped once no gateway reports a request in flight on it (`lb.load`), or after
 * LB_DRAIN_TIMEOUT_MS. The client never polls: only this does.
 */
@Injectable()
export class LbWorkersProber implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('lb');
  private readonly health = new Map<string, Health>();
  /** Workers being drained, with the run that is. */
  private readonly draining = new Map<string, number>();
  private readonly reports = new Map<string, { report: LbLoadReport; at: number }>();
  private subscription?: Subscription;
  private timer?: NodeJS.Timeout;
  private probing = false;

  constructor(
    @Inject(RUNTIME_DRIVER) private readonly driver: RuntimeDriver,
    private readonly nats: NatsClient,
    private readonly reporter: ObservationReporter,
    private readonly config: PodLifecycleConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.REPLAY_MODE || !this.driver.lbWorkers) return;
    this.subscription = this.nats.nc.subscribe(this.nats.subject(LbSubjects.load), {
      callback: (error, message) => {
        if (error) return;
        try {
          const report = message.json<LbLoadReport>();
          if (typeof report?.gatewayId === 'string' && Array.isArray(report.endpoints)) {
            this.reports.set(report.gatewayId, { report, at: Date.now() });
          }
        } catch {
          this.logger.warn(`unreadable ${LbSubjects.load} report ignored`);
        }
      },
    });
    this.timer = setInterval(() => void this.probeAll(), this.config.LB_PING_INTERVAL_MS);
    this.timer.unref();
  }

  beforeApplicationShutdown(): void {
    clearInterval(this.timer);
    this.subscription?.unsubscribe();
  }

  /**
   * Called before a pod's container is stopped or removed: a load-balancing worker takes no new request from now
   * on, and this resolves once the requests in flight on it are over (or LB_DRAIN_TIMEOUT_MS ran out).
   */
  async drain(podId: string): Promise<void> {
    const worker = this.driver.lbWorkers?.().find((w) => w.podId === podId);
    if (!worker) return;
    this.draining.set(podId, worker.generation);
    this.announce(worker, 'draining');
    const started = Date.now();
    // Long enough for every gateway to have heard of the drain and reported what it still sends the worker.
    const settleMs = 2 * this.reportIntervalMs() + 2 * this.config.LB_PING_INTERVAL_MS;
    for (;;) {
      const inFlightReported = this.inFlightOn(worker);
      const elapsedMs = Date.now() - started;
      if (drainDone({ elapsedMs, settleMs, timeoutMs: this.config.LB_DRAIN_TIMEOUT_MS, inFlightReported })) {
        if (inFlightReported > 0) {
          this.logger.warn(`worker ${podId}: drain timed out with ${inFlightReported} request(s) in flight`);
        } else this.logger.log(`worker ${podId}: drained in ${elapsedMs} ms`);
        return;
      }
      // Announced again meanwhile: a gateway that starts now hears of the drain too.
      this.announce(worker, 'draining');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async probeAll(): Promise<void> {
    if (this.probing) return; // a slow round (timeouts) is not overlapped
    this.probing = true;
    try {
      const workers = this.driver.lbWorkers?.() ?? [];
      const live = new Set(workers.map((w) => w.podId));
      for (const podId of this.health.keys()) if (!live.has(podId)) this.health.delete(podId);
      for (const [podId, generation] of this.draining) {
        const worker = workers.find((w) => w.podId === podId);
        if (!worker || worker.generation !== generation) this.draining.delete(podId);
      }
      await Promise.all(workers.map((worker) => this.probe(worker)));
    } finally {
      this.probing = false;
    }
  }

  private async probe(worker: LbWorkerAddress): Promise<void> {
    if (this.draining.has(worker.podId)) return this.announce(worker, 'draining');
    let health = this.health.get(worker.podId);
    if (!health || health.generation !== worker.generation) {
      health = { generation: worker.generation, unhealthySince: null, reported: false };
      this.health.set(worker.podId, health);
    }
    const { state, detail } = await this.ping(worker);
    if (this.draining.has(worker.podId)) return; // a drain began while it was being asked
    const now = Date.now();
    health.unhealthySince = state === 'unhealthy' ? (health.unhealthySince ?? now) : null;
    this.announce(worker, state);
    if (
      health.unhealthySince !== null &&
      !health.reported &&
      now - health.unhealthySince >= this.config.LB_UNHEALTHY_AFTER_MS
    ) {
      health.reported = true;
      const seconds = Math.round((now - health.unhealthySince) / 1000);
      const reason = `load-balancing worker unhealthy for ${seconds} s: GET /ping ${detail}`;
      this.logger.warn(`worker ${worker.podId}: ${reason}`);
      this.reporter.report({
        podId: worker.podId,
        generation: worker.generation,
        status: PodStatus.Error,
        reason,
      });
    }
  }

  private async ping(worker: LbWorkerAddress): Promise<{ state: LbWorkerState; detail: string }> {
    try {
      const response = await fetch(`${worker.healthUrl}/ping`, {
        signal: AbortSignal.timeout(this.config.LB_PING_TIMEOUT_MS),
      });
      await response.body?.cancel();
      return { state: pingState(response.status), detail: `answered ${response.status}` };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      return { state: pingState(null), detail: `got no answer (${cause})` };
    }
  }

  private announce(worker: LbWorkerAddress, state: LbWorkerState): void {
    const announcement: LbWorkerAnnouncement = {
      endpointId: worker.endpointId,
      podId: worker.podId,
      url: worker.url,
      state,
      // Three polls: one lost message does not take a worker out of the rotation.
      validForMs: 3 * this.config.LB_PING_INTERVAL_MS,
    };
    try {
      this.nats.nc.publish(this.nats.subject(LbSubjects.workerState), JSON.stringify(announcement));
    } catch (error) {
      this.logger.warn(`could not publish ${LbSubjects.workerState}: ${(error as Error).message}`);
    }
  }

  /** Requests in flight on the worker, summed over the gateways' reports that are still fresh. */
  private inFlightOn(worker: LbWorkerAddress): number {
    const now = Date.now();
    let total = 0;
    for (const [gatewayId, { report, at }] of this.reports) {
      if (now - at > 3 * Math.max(report.intervalMs, DEFAULT_REPORT_MS)) {
        this.reports.delete(gatewayId);
        continue;
      }
      const endpoint = report.endpoints.find((e) => e.endpointId === worker.endpointId);
      total += endpoint?.workers[worker.podId] ?? 0;
    }
    return total;
  }

  private reportIntervalMs(): number {
    let longest = DEFAULT_REPORT_MS;
    for (const { report } of this.reports.values()) longest = Math.max(longest, report.intervalMs);
    return longest;
  }
}
