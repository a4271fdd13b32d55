import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { Streams } from '@app/contracts';
import type { NatsClient } from './nats-client.js';

/**
 * The streams every deployment has. Commands and events are recorded (limits retention: kept for replay, not
 * removed on ack); request-reply subjects (`*.qry.*`, `outcome.*`) are never captured by a stream, so a stream's
 * publish ack can never hijack a reply.
 */
export function streamConfigs(client: NatsClient): (Partial<StreamConfig> & { name: string })[] {
  return [
    {
      name: client.streamName(Streams.Commands),
      num_replicas: client.streamReplicas,
      subjects: [client.subject('*.cmd.>')],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      duplicate_window: nanos(120_000),
    },
    {
      name: client.streamName(Streams.Events),
      num_replicas: client.streamReplicas,
      subjects: [client.subject('*.evt.>')],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      max_age: nanos(7 * 24 * 3600 * 1000),
      duplicate_window: nanos(120_000),
    },
    {
      name: client.streamName(Streams.DeadLetters),
      num_replicas: client.streamReplicas,
      subjects: [`${client.prefix}_dlq.>`],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
    },
  ];
}

/** How much of the containers' logs the LOGS stream keeps (pod-lifecycle's LOG_RETENTION_* settings). */
export interface LogRetention {
  maxAgeMs: number;
  maxBytes: number;
  maxMsgsPerSubject: number;
}

/**
 * The LOGS stream (docs/adr/0020): declared by pod-lifecycle, which publishes the lines and owns the retention
 * settings, so its limits follow the configuration (updated in place when they changed). Memory-light file
 * storage, discarding the oldest lines first; no duplicate window, a batch re-sent is at worst shown twice.
 */
export async function ensureLogStream(client: NatsClient, retention: LogRetention): Promise<void> {
  const limits = {
    max_age: nanos(retention.maxAgeMs),
    max_bytes: retention.maxBytes,
    max_msgs_per_subject: retention.maxMsgsPerSubject,
  };
  const name = client.streamName(Streams.Logs);
  const existing = await client.jsm.streams.info(name).then(
    (info) => info.config,
    () => undefined,
  );
  if (!existing) {
    return ensureStream(client, {
      name,
      num_replicas: client.streamReplicas,
      subjects: [client.subject('logs.*')],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      ...limits,
    });
  }
  const changed = (Object.keys(limits) as (keyof typeof limits)[]).some(
    (key) => existing[key] !== limits[key],
  );
  if (changed || (existing.num_replicas ?? 1) < client.streamReplicas) {
    await client.jsm.streams.update(name, {
      ...existing,
      ...limits,
      num_replicas: Math.max(existing.num_replicas ?? 1, client.streamReplicas),
    });
  }
}

function alreadyExists(error: unknown): boolean {
  return error instanceof JetStreamApiError && /already in use|already exists/i.test(error.message);
}

/**
 * Creates the streams if missing, all at once (one round trip, not three, on the start path); several apps booting
 * at once may race here, which is harmless.
 */
export async function ensureStreams(client: NatsClient): Promise<void> {
  await Promise.all(streamConfigs(client).map((config) => ensureStream(client, config)));
}

async function ensureStream(
  client: NatsClient,
  config: Partial<StreamConfig> & { name: string },
): Promise<void> {
  let existing: StreamConfig | undefined;
  try {
    existing = (await client.jsm.streams.info(config.name)).config;
  } catch {
    existing = undefined;
  }
  if (existing) {
    // A deployment moved from one server to a cluster (NATS_STREAM_REPLICAS raised): JetStream re-replicates the
    // stream in place. Never lowered here: an app started with the default must not shrink a cluster's streams.
    if ((existing.num_replicas ?? 1) < (config.num_replicas ?? 1)) {
      await client.jsm.streams.update(config.name, { ...existing, num_replicas: config.num_replicas });
    }
    return;
  }
  try {
    await client.jsm.streams.add(config);
  } catch (error) {
    // Another app created it at the same moment ("already in use" or "subjects overlap"): fine if it exists now.
    const exists = await client.jsm.streams.info(config.name).then(
      () => true,
      () => false,
    );
    if (!exists) throw error;
  }
}

/** A durable pull consumer with explicit ack and bounded redelivery. */
export async function ensureDurableConsumer(
  client: NatsClient,
  stream: string,
  durable: string,
  filterSubject: string,
  maxDeliver: number,
  ackWaitMs = 30_000,
): Promise<void> {
  const config: Partial<ConsumerConfig> = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: filterSubject,
    max_deliver: maxDeliver,
    ack_wait: nanos(ackWaitMs),
    max_ack_pending: 1000,
  };
  try {
    await client.jsm.consumers.info(stream, durable);
    await client.jsm.consumers.update(stream, durable, {
      max_deliver: maxDeliver,
      ack_wait: config.ack_wait,
      max_ack_pending: config.max_ack_pending,
    });
  } catch {
    try {
      await client.jsm.consumers.add(stream, config);
    } catch (error) {
      if (!alreadyExists(error)) throw error;
    }
  }
}
