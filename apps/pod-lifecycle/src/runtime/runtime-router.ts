import { createHash } from 'node:crypto';
import type { Msg, Subscription } from '@nats-io/transport-node';
import { AdvisoryPartitions } from '@app/database';
import type { NatsClient } from '@app/messaging';

/**
 * How many parts the pods are split into among pod-lifecycle replicas: at most this many replicas drive pods.
 * A constant of the code, not a setting: two replicas that split differently would drive some pods twice.
 */
export const RUNTIME_PARTITIONS = 64;

/** The owner's answer to a routed pod once reconciled; anything else is the reason it could not. */
const DONE = 'done';

/** The partition a pod belongs to, for its whole life (a hash of its id). */
export function partitionOf(podId: string): number {
  return createHash('sha1').update(podId).digest().readUInt32BE(0) % RUNTIME_PARTITIONS;
}

/** What the router asks of the replica's runtime side. */
export interface RuntimeWork {
  /** Partitions just taken: drive every live pod in them. */
  adopt(partitions: number[]): Promise<void>;
  /** Partitions given back or lost: forget their pods, touching no container (their new owner adopts them). */
  release(partitions: number[]): Promise<void>;
  /** Bring one pod's runtime in line with its row (this replica owns its partition). */
  reconcile(podId: string): Promise<void>;
}

export interface RuntimeRouterOptions {
  databaseUrl: string;
  checkMs: number;
  /** How long `route` waits for the owner's answer. */
  timeoutMs: number;
  log: (line: string) => void;
}

/**
 * Each pod is driven by exactly one pod-lifecycle replica (docs/adr/0018-partitioned-runtime.md): the one holding
 * its partition's advisory lock. A `pod.evt.status-changed` event reaches whichever replica its consumer hands it
 * to; that replica routes it over core NATS to the partition's owner (`<prefix>.pod.runtime.<partition>`, which only
 * the owner subscribes to) and waits for the owner to have reconciled it. No owner (a takeover under way) is an
 * error, so the event is delivered again a moment later.
 */
export class RuntimeRouter {
  private readonly partitions: AdvisoryPartitions;
  private readonly subscriptions = new Map<number, Subscription>();

  constructor(
    private readonly nats: NatsClient,
    private readonly work: RuntimeWork,
    private readonly options: RuntimeRouterOptions,
  ) {
    this.partitions = new AdvisoryPartitions({
      databaseUrl: options.databaseUrl,
      name: 'pod-lifecycle/runtime',
      partitions: RUNTIME_PARTITIONS,
      checkMs: options.checkMs,
      log: options.log,
      onAcquired: (taken) => this.acquired(taken),
      onReleased: (given) => this.released(given),
    });
  }

  start(): void {
    this.partitions.start();
  }

  /** Resolves once the first check is done: what this replica drives. */
  settled(): Promise<number[]> {
    return this.partitions.settled();
  }

  owned(): number[] {
    return this.partitions.owned();
  }

  owns(partition: number): boolean {
    return this.partitions.owns(partition);
  }

  async stop(): Promise<void> {
    await this.partitions.stop();
  }

  /** Has the owner of the pod's partition (maybe this replica) reconcile it; throws when nobody owns it now. */
  async route(podId: string): Promise<void> {
    const partition = partitionOf(podId);
    let reply: Msg;
    try {
      reply = await this.nats.nc.request(this.subject(partition), podId, { timeout: this.options.timeoutMs });
    } catch (error) {
      throw new Error(
        `no pod-lifecycle replica drives partition ${partition} now (${(error as Error).message})`,
        { cause: error },
      );
    }
    const answer = reply.string();
    if (answer !== DONE) {
      throw new Error(`the owner of partition ${partition} could not reconcile pod ${podId}: ${answer}`);
    }
  }

  private async acquired(partitions: number[]): Promise<void> {
    // Listen first: an event routed while the adoption runs waits behind it in the pod's queue, not in a void.
    for (const partition of partitions) {
      const sub = this.nats.nc.subscribe(this.subject(partition), {
        callback: (error, msg) => {
          if (!error) void this.answer(msg);
        },
      });
      this.subscriptions.set(partition, sub);
    }
    await this.work.adopt(partitions);
  }

  private async released(partitions: number[]): Promise<void> {
    for (const partition of partitions) {
      this.subscriptions.get(partition)?.unsubscribe();
      this.subscriptions.delete(partition);
    }
    await this.work.release(partitions);
  }

  private async answer(msg: Msg): Promise<void> {
    try {
      await this.work.reconcile(msg.string());
      msg.respond(DONE);
    } catch (error) {
      msg.respond((error as Error).message || 'failed');
    }
  }

  private subject(partition: number): string {
    return this.nats.subject(`pod.runtime.${partition}`);
  }
}
