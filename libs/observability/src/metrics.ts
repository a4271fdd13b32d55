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
  natsConnected: new Gauge({
    name: 'bus_nats_connected',
    help: '1 while connected to NATS',
    registers: [metricsRegistry],
  }),
};
