import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One Prometheus registry per process, with the default process metrics and the bus metrics. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export const busMetrics = {
  commandsHandled: new Counter({
    name: 'bus_commands_handled_total',
    help: 'Commands handled, by subject and outcome (ok, error, duplicate, dead_letter)',
    labelNames: ['subject', 'outcome'] as const,
    registers: [metricsRegistry],
  }),
  commandSeconds: new Histogram({
    name: 'bus_command_handle_seconds',
    help: 'Time to handle one command, transaction included',
    labelNames: ['subject'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [metricsRegistry],
  }),
  queriesServed: new Counter({
    name: 'bus_queries_served_total',
    help: 'Queries answered, by subject and outcome',
    labelNames: ['subject', 'outcome'] as const,
    registers: [metricsRegistry],
  }),
  outboxPending: new Gauge({
    name: 'bus_outbox_pending',
    help: 'Events written to the outbox and not yet relayed',
    registers: [metricsRegistry],
  }),
  outboxOldestPendingSeconds: new Gauge({
    name: 'bus_outbox_oldest_pending_seconds',
    help: 'Age of the oldest event in the outbox not yet relayed, 0 when none waits: the relay lag',
    registers: [metricsRegistry],
  }),
  databaseUp: new Gauge({
    name: 'database_up',
    help: "1 while the outbox relay's every-second count reaches Postgres, 0 when it fails",
    registers: [metricsRegistry],
  }),
  natsConnected: new Gauge({
    name: 'bus_nats_connected',
    help: '1 while connected to NATS',
    registers: [metricsRegistry],
  }),
};

/**
 * Who does the work that runs once (libs/database advisory-leadership.ts) or in parts (advisory-partitions.ts),
 * per replica: what an operator watches during a takeover.
 */
export const coordinationMetrics = {
  leading: new Gauge({
    name: 'leader_is_leading',
    help: '1 while this replica leads the named work (an advisory lock), else 0',
    labelNames: ['name'] as const,
    registers: [metricsRegistry],
  }),
  leaderChanges: new Counter({
    name: 'leader_changes_total',
    help: 'Times this replica took (acquired) or lost (lost) the lead of the named work',
    labelNames: ['name', 'change'] as const,
    registers: [metricsRegistry],
  }),
  partitionsOwned: new Gauge({
    name: 'partitions_owned',
    help: 'Partitions of the named work this replica drives now',
    labelNames: ['name'] as const,
    registers: [metricsRegistry],
  }),
  partitionMoves: new Counter({
    name: 'partition_moves_total',
    help: 'Partitions this replica took (acquired) or gave back or lost (released)',
    labelNames: ['name', 'move'] as const,
    registers: [metricsRegistry],
  }),
};
