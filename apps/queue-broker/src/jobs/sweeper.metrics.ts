import { Counter } from 'prom-client';
import { metricsRegistry } from '@app/observability';

/** What the sweeper finds, counted by the replica leading it (queue-broker/sweeper). */
export const sweeperMetrics = {
  workersLost: new Counter({
    name: 'queue_broker_workers_lost_total',
    help:
      'Workers found lost by the sweep: silent for WORKER_LOST_AFTER_MS, their leases handed back (preempted workers ' +
      "and those of a lost host are not counted here: the host's own state says why)",
    registers: [metricsRegistry],
  }),
};
