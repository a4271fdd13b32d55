import { Injectable } from '@nestjs/common';
import { METRICS_STEPS_S } from '@app/contracts';
import { QueueBrokerConfig } from '../../queue-broker.config.js';
import { coldStartPhases } from '../cold-start-phases.js';
import { endpointPrometheus, exportGauges, observeColdStartPhases } from '../endpoint-metrics.prometheus.js';
import { MetricsRepository } from '../metrics.repository.js';
import { RollupDeltas } from '../rollup-deltas.js';
import { WorkerStartsRepository } from '../worker-starts.repository.js';

/** A first job request is looked for this far back (a take applied late still counts, once). */
const COLD_START_LOOKBACK_MS = 3600_000;
/** How long a worker's count waits for its pod's RUNNING to be applied (it normally takes milliseconds). */
const COLD_START_SETTLE_MS = 30_000;
/** Retention is enforced every this many samples. */
const PRUNE_EVERY = 60;

/**
 * Every METRICS_SAMPLE_MS on the metrics leader: samples every active endpoint's queue depth, oldest queued job
 * and workers by status into the rollups' peak gauges (and Prometheus), and counts the workers that asked for
 * their first job since as cold starts (each once). Reads only the queued jobs (a partial index), the leased
 * ones and the workers table, never the jobs' history.
 */
@Injectable()
export class GaugeSampler {
  private ticks = 0;

  constructor(
    private readonly metrics: MetricsRepository,
    private readonly starts: WorkerStartsRepository,
    private readonly config: QueueBrokerConfig,
  ) {}

  async tick(now = new Date()): Promise<void> {
    const samples = await this.metrics.sampleGauges(
      now,
      new Date(now.getTime() - this.config.WORKER_LOST_AFTER_MS),
      new Date(now.getTime() - this.config.WORKER_INIT_TIMEOUT_MS),
    );
    await this.metrics.raiseGauges(samples, now, METRICS_STEPS_S);
    exportGauges(samples, this.config.METRICS_PROMETHEUS_ENDPOINTS);
    await this.countColdStarts(now);
    if (this.ticks++ % PRUNE_EVERY === 0) await this.prune(now);
  }

  private async countColdStarts(now: Date): Promise<void> {
    const deltas = new RollupDeltas();
    const counted = await this.metrics.transaction(async (manager) => {
      const started = await this.starts.newColdStarts(
        new Date(now.getTime() - COLD_START_LOOKBACK_MS),
        new Date(now.getTime() - COLD_START_SETTLE_MS),
        manager,
      );
      const withPhases = started.map((w) => ({ ...w, phases: coldStartPhases(w) }));
      for (const w of withPhases) deltas.coldStart(w.endpointId, w.registeredAt, w.firstPollAt, w.phases);
      await this.metrics.add(deltas, manager);
      return withPhases;
    });
    for (const w of counted) {
      endpointPrometheus.coldStarts.inc();
      const ms = w.firstPollAt.getTime() - w.registeredAt.getTime();
      endpointPrometheus.coldStartSeconds.observe(Math.max(0, ms) / 1000);
      observeColdStartPhases(w.endpointId, w.phases);
    }
  }

  private prune(now: Date): Promise<void> {
    const [minute, hour] = METRICS_STEPS_S;
    return this.metrics.prune(
      [
        { stepS: minute, before: new Date(now.getTime() - this.config.METRICS_MINUTE_RETENTION_MS) },
        { stepS: hour, before: new Date(now.getTime() - this.config.METRICS_HOUR_RETENTION_MS) },
      ],
      new Date(now.getTime() - 2 * COLD_START_LOOKBACK_MS),
    );
  }
}
