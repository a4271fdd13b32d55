import { Injectable } from '@nestjs/common';
import type { QueueStats } from '@app/contracts';
import { MetricsRepository } from '../../metrics/metrics.repository.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';
import { JobsRepository, type QueueCounts } from '../jobs.repository.js';
import { WorkerRoster, type WorkerStates } from '../worker-roster.js';

const NO_QUEUE: QueueCounts = { inQueue: 0, inProgress: 0, inQueueNonLowPriority: 0, oldestQueuedAt: null };
const NO_WINDOW = { completed: 0, failed: 0, retried: 0 };
const NO_WORKERS: WorkerStates = {
  idle: 0,
  running: 0,
  initializing: 0,
  unhealthy: 0,
  recycle: [],
  initializingIds: [],
  busyIds: [],
};

/**
 * The numbers behind /health and `job.qry.queue-stats`: the queue and the workers as they are now, the jobs
 * finished in the last HEALTH_WINDOW_MS from the metrics rollups (ADR 22).
 */
@Injectable()
export class QueueStatsReader {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly metrics: MetricsRepository,
    private readonly workers: WorkerRoster,
    private readonly config: QueueBrokerConfig,
  ) {}

  async read(endpointId: string, now: Date): Promise<QueueStats> {
    return (await this.readMany([endpointId], now))[0];
  }

  /** Every endpoint's, in the order asked: three statements whatever their number (the autoscaler's tick). */
  async readMany(endpointIds: string[], now: Date): Promise<QueueStats[]> {
    const [queues, windows, rosters] = await Promise.all([
      this.jobs.queueCounts(endpointIds, now),
      this.metrics.windowCounts(endpointIds, new Date(now.getTime() - this.config.HEALTH_WINDOW_MS)),
      this.workers.counts(
        endpointIds,
        new Date(now.getTime() - this.config.WORKER_LOST_AFTER_MS),
        new Date(now.getTime() - this.config.WORKER_INIT_TIMEOUT_MS),
      ),
    ]);
    return endpointIds.map((endpointId) => {
      const queue = queues.get(endpointId) ?? NO_QUEUE;
      const window = windows.get(endpointId) ?? NO_WINDOW;
      const workers = rosters.get(endpointId) ?? NO_WORKERS;
      return {
        endpointId,
        inQueue: queue.inQueue,
        inProgress: queue.inProgress,
        inQueueNonLowPriority: queue.inQueueNonLowPriority,
        oldestQueuedAgeMs: queue.oldestQueuedAt
          ? Math.max(0, now.getTime() - queue.oldestQueuedAt.getTime())
          : 0,
        completed: window.completed,
        failed: window.failed,
        retried: window.retried,
        workers: {
          idle: workers.idle,
          running: workers.running,
          initializing: workers.initializing,
          unhealthy: workers.unhealthy,
        },
        recycleWorkerIds: workers.recycle,
        initializingWorkerIds: workers.initializingIds,
        busyWorkerIds: workers.busyIds,
      };
    });
  }
}
