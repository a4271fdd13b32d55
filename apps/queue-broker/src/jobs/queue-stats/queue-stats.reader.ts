import { Injectable } from '@nestjs/common';
import type { QueueStats } from '@app/contracts';
import { MetricsRepository } from '../../metrics/metrics.repository.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';
import { JobsRepository } from '../jobs.repository.js';
import { WorkerRoster } from '../worker-roster.js';

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
    const [queue, window, workers] = await Promise.all([
      this.jobs.queueCounts(endpointId, now),
      this.metrics.windowCounts(endpointId, new Date(now.getTime() - this.config.HEALTH_WINDOW_MS)),
      this.workers.counts(
        endpointId,
        new Date(now.getTime() - this.config.WORKER_LOST_AFTER_MS),
        new Date(now.getTime() - this.config.WORKER_INIT_TIMEOUT_MS),
      ),
    ]);
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
  }
}
