import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { HINTED_EVENTS, Headers } from '@app/contracts';
import { pipelinedTransaction } from '@app/database';
import { busMetrics } from '@app/observability';
import { BookkeepingStatements, type ClaimedOutboxRow } from './bookkeeping-statements.js';
import type { EventEnvelope } from './handler-context.js';
import { NatsClient } from './nats-client.js';

const BATCH = 100;
/**
 * How long a relay of hinted events only may wait for more rows to relay with them: each was already sent to its
 * latency-bound listeners as a hint after commit, so only durability and the other consumers wait for the relay,
 * and under load one relay transaction then carries the events of many commits, not of one or two.
 */
export const HINTED_RELAY_DELAY_MS = 20;

/**
 * Relays outbox rows to the events stream in insertion order, after commit: kicked after each batch that wrote
 * events and swept every second for what a crash or an outage left behind. Rows are claimed with SKIP LOCKED so
 * replicas share the work, and marked published in the same statement, in a transaction that commits only once
 * the stream acknowledged them; the event id is the `Nats-Msg-Id`, so a row published twice is stored once.
 * The sweep counts the unpublished rows first (one statement, also the `bus_outbox_pending` gauge) and relays only
 * when there are some: an idle app opened a transaction a second to find nothing. A commit whose events were all
 * hinted wakes the relay within HINTED_RELAY_DELAY_MS rather than at once (docs/adr/0013, "The outbox
 * relay"); any other event wakes it at once.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('outbox');
  private timer?: NodeJS.Timeout;
  /** A relay woken for hinted events, waiting for company. */
  private delayed?: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private again = false;
  private againAtOnce = false;
  private readonly statements: BookkeepingStatements;

  constructor(
    private readonly dataSource: DataSource,
    private readonly nats: NatsClient,
  ) {
    this.statements = new BookkeepingStatements(dataSource);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), 1000);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    // What waited for company goes now, not at the next start's sweep.
    if (this.delayed) this.kick();
    await this.flushing;
  }

  /** Relays what was written, at once; `atOnce` false: within HINTED_RELAY_DELAY_MS. */
  kick(atOnce = true): void {
    if (this.flushing) {
      this.again = true;
      this.againAtOnce ||= atOnce;
      return;
    }
    if (!atOnce) {
      this.delayed ??= setTimeout(() => {
        this.delayed = undefined;
        this.kick();
      }, HINTED_RELAY_DELAY_MS);
      return;
    }
    clearTimeout(this.delayed);
    this.delayed = undefined;
    this.flushing = this.flush()
      .catch((error: Error) => this.logger.warn(`outbox relay paused: ${error.message}`))
      .finally(() => {
        this.flushing = null;
        if (this.again) {
          const atOnceAgain = this.againAtOnce;
          this.again = false;
          this.againAtOnce = false;
          this.kick(atOnceAgain);
        }
      });
  }

  /** Wakes the relay for the events a commit wrote: at once unless every one of them was hinted. */
  written(events: readonly { subject: string }[]): void {
    if (!events.length) return;
    this.kick(events.some((event) => !HINTED_EVENTS.has(event.subject)));
  }

  private async flush(): Promise<void> {
    for (;;) {
      const relayed = await pipelinedTransaction(this.dataSource, async (manager) => {
        // The marks' commit is told not to wait for its WAL flush: a mark lost in a crash only relays its rows
        // again, which the stream stores once (Nats-Msg-Id) and consumers apply once (event id), and the flush it
        // skips was one the next command's commit queued behind (docs/adr/0013-command-batching-and-lanes.md).
        // Said before the claim, it leaves with BEGIN and the claim: one write to Postgres fewer per batch.
        await this.statements.commitWithoutFlush(manager);
        const rows = await this.statements.claim(manager, BATCH);
        if (!rows.length) return 0;
        // Sent back to back on the one connection, so the stream stores them in this order; the acks are awaited
        // together (one round trip for the batch, not one per row). A failure rolls the marks back.
        await Promise.all(rows.map((row) => this.publish(row)));
        return rows.length;
      });
      if (relayed < BATCH) break;
    }
  }

  private async sweep(): Promise<void> {
    let pending: { count: number; oldestAgeSeconds: number };
    try {
      pending = await this.statements.pending(this.dataSource.manager);
    } catch {
      // The database being down is reported by readiness and by `database_up` (this count is the every-second
      // probe every app runs); relaying says so in its own words, as before the count.
      busMetrics.databaseUp.set(0);
      this.kick();
      return;
    }
    busMetrics.databaseUp.set(1);
    busMetrics.outboxPending.set(pending.count);
    busMetrics.outboxOldestPendingSeconds.set(pending.oldestAgeSeconds);
    if (pending.count > 0) this.kick();
  }

  private async publish(row: ClaimedOutboxRow): Promise<void> {
    const event: EventEnvelope = {
      eventId: row.id,
      subject: row.subject,
      occurredAt: row.occurredAt.toISOString(),
      correlationId: row.correlationId,
      payload: row.payload,
    };
    const h = natsHeaders();
    h.set(Headers.CorrelationId, row.correlationId);
    await this.nats.js.publish(this.nats.subject(row.subject), JSON.stringify(event), {
      msgID: row.id,
      headers: h,
    });
  }
}
