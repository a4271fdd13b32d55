import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { DomainError, ErrorCode, deriveId, type CommandOutcome, type ErrorPayload } from '@app/contracts';
import { ProcessedCommandEntity, pipelinedTransaction } from '@app/database';
import type {
  AuditOfRefusal,
  BatchItem,
  Effect,
  Emit,
  EmittedEvent,
  MessageIdentity,
  ProcessResult,
} from './applied-message.js';
import { auditEvent, recordRefusalWithEntry } from './audited-refusal.js';
import { BookkeepingStatements, type OutboxRow, type ProcessedRow } from './bookkeeping-statements.js';
import { FaultInjector } from './fault-injector.js';

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '23505';
}

/**
 * A DomainError thrown by a message applied on its own, and the database's clock read in its transaction before the
 * rollback, while it still held every lock it took: the moment of the refusal, which its processed row is dated with.
 */
class Refusal extends Error {
  constructor(
    readonly error: DomainError,
    readonly decidedAt: string | null,
  ) {
    super(error.message);
  }
}

/**
 * Applies a message exactly once: the effect, its outbox events and the processed-commands row commit in one
 * transaction. A redelivery or a replay finds the row and returns the recorded outcome. A DomainError is an
 * answer, recorded too (the same command always gets the same answer); any other error propagates so the
 * transport redelivers.
 *
 * `processBatch` applies several messages in ONE transaction (one commit, one multi-row insert of their processed
 * rows and one of their events), in the order given, each seeing the effects of those before it, exactly as if
 * they had been applied one after another. If any of them fails, the whole transaction is rolled back and the
 * batch is applied again one message at a time, so one bad message costs its neighbours a retry, never their
 * outcome (docs/adr/0013-command-batching-and-lanes.md).
 */
@Injectable()
export class MessageProcessor {
  private readonly statements: BookkeepingStatements;

  constructor(
    private readonly dataSource: DataSource,
    private readonly faults: FaultInjector,
  ) {
    this.statements = new BookkeepingStatements(dataSource);
  }

  async find(id: string): Promise<CommandOutcome | null> {
    return (await this.findMany([id])).get(id) ?? null;
  }

  /** The recorded outcomes of those of `ids` that were applied, in one statement. */
  async findMany(ids: string[]): Promise<Map<string, CommandOutcome>> {
    if (!ids.length) return new Map();
    return this.statements.find(this.dataSource.manager, ids);
  }

  /** `audit`: an audited command's refusal entry (BatchItem.audit). */
  async process(message: MessageIdentity, effect: Effect, audit?: AuditOfRefusal): Promise<ProcessResult> {
    const recorded = await this.find(message.id);
    if (recorded) return { outcome: recorded, duplicate: true, events: [] };
    return this.applyOne({ message, effect, audit });
  }

  /**
   * Applies the messages in order, in one transaction when it can; one result per item, in the same order: its
   * outcome, or the error that kept it from being applied (the database unreachable, say), for the caller to retry.
   */
  async processBatch(items: BatchItem[]): Promise<(ProcessResult | Error)[]> {
    const settle = (p: Promise<ProcessResult>) => p.catch((error: unknown) => toError(error));
    if (items.length === 1) {
      const [item] = items;
      return [
        await settle(item.fresh ? this.applyOne(item) : this.process(item.message, item.effect, item.audit)),
      ];
    }
    const recorded = await this.findMany(items.filter((item) => !item.fresh).map((item) => item.message.id));
    const results = new Array<ProcessResult | Error | undefined>(items.length);
    const fresh: number[] = [];
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const outcome = recorded.get(item.message.id);
      if (outcome) results[i] = { outcome, duplicate: true, events: [] };
      // The same message twice in one batch (a redelivery overtaking the first): the second waits below.
      else if (!seen.has(item.message.id)) {
        seen.add(item.message.id);
        fresh.push(i);
      }
    });
    if (fresh.length) {
      const applied = await this.applyTogether(fresh.map((i) => items[i])).catch(() => null);
      if (applied) fresh.forEach((i, n) => (results[i] = applied[n]));
      else for (const i of fresh) results[i] = await settle(this.applyOne(items[i]));
    }
    for (let i = 0; i < items.length; i++) {
      results[i] ??= await settle(this.process(items[i].message, items[i].effect, items[i].audit));
    }
    return results as (ProcessResult | Error)[];
  }

  /**
   * Records a failed outcome; if an outcome was recorded meanwhile, that one stands. `decidedAt` (the database's
   * clock, as text) dates the row when the refusal was decided in an earlier transaction; without it, the row is
   * dated when written. `audit`: the refused command's audit entry, written to the outbox with the row.
   */
  async recordFailure(
    message: MessageIdentity,
    error: ErrorPayload,
    decidedAt: string | null = null,
    audit?: AuditOfRefusal,
  ): Promise<ProcessResult> {
    const outcome: CommandOutcome = { ok: false, error };
    const entry = audit?.(error) ?? null;
    if (entry !== null) return this.recordAuditedFailure(message, outcome, decidedAt, entry);
    const inserted = await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(ProcessedCommandEntity)
      .values(this.row(message, outcome, decidedAt))
      .setParameter('decidedAt', decidedAt)
      .orIgnore()
      .returning(['commandId'])
      .execute();
    if (inserted.raw && (inserted.raw as unknown[]).length) return { outcome, duplicate: false, events: [] };
    const winner = await this.find(message.id);
    return { outcome: winner ?? outcome, duplicate: true, events: [] };
  }

  /** A refusal and its audit entry (auditedRefusal), answered as recordFailure answers. */
  private async recordAuditedFailure(
    message: MessageIdentity,
    outcome: CommandOutcome,
    decidedAt: string | null,
    payload: unknown,
  ): Promise<ProcessResult> {
    const event = auditEvent(message, payload);
    if (
      await recordRefusalWithEntry(this.dataSource, this.row(message, outcome, decidedAt), decidedAt, event)
    ) {
      return { outcome, duplicate: false, events: [event] };
    }
    const winner = await this.find(message.id);
    return { outcome: winner ?? outcome, duplicate: true, events: [] };
  }

  static internalError(message: string): ErrorPayload {
    return { code: ErrorCode.Internal, message };
  }

  /** Applies one message in a transaction of its own; a refusal is recorded as its outcome. */
  private async applyOne(item: BatchItem): Promise<ProcessResult> {
    try {
      const [result] = await this.applyTogether([item]);
      return result;
    } catch (error) {
      if (error instanceof Refusal) {
        return this.recordFailure(item.message, error.error.toPayload(), error.decidedAt, item.audit);
      }
      if (error instanceof DomainError) {
        return this.recordFailure(item.message, error.toPayload(), null, item.audit);
      }
      if (isUniqueViolation(error)) {
        // Another delivery of the same message committed first.
        const winner = await this.find(item.message.id);
        if (winner) return { outcome: winner, duplicate: true, events: [] };
      }
      throw error;
    }
  }

  /** Applies every item in one transaction; throws (everything rolled back) if any of them fails. */
  private async applyTogether(items: BatchItem[]): Promise<ProcessResult[]> {
    const results = await pipelinedTransaction(this.dataSource, async (manager) => {
      const outbox: OutboxRow[] = [];
      const processed: ProcessedRow[] = [];
      const applied: ProcessResult[] = [];
      for (const [index, { message, effect }] of items.entries()) {
        const events: EmittedEvent[] = [];
        const emitted = new Map<string, number>();
        const emit: Emit = (subject, payload, part) => {
          // Several events of one subject in one command get distinct, still deterministic, ids.
          const n = emitted.get(subject) ?? 0;
          emitted.set(subject, n + 1);
          const event: EmittedEvent = {
            id: deriveId(message.id, `evt/${subject}/${part ?? n}`, 24),
            subject,
            payload,
            correlationId: message.correlationId,
            occurredAt: message.issuedAt,
          };
          events.push(event);
          outbox.push({
            id: event.id,
            subject,
            payload,
            correlationId: message.correlationId,
            occurredAt: message.issuedAt,
          });
          return Promise.resolve();
        };
        let value: unknown;
        try {
          // What this transaction applies after it, for a handler that reads for several commands at once.
          const later = items.slice(index + 1).flatMap((item) => (item.ahead ? [item.ahead] : []));
          value = await effect(manager, emit, later);
        } catch (error) {
          if (error instanceof DomainError && items.length === 1) throw await this.refusal(manager, error);
          throw error;
        }
        // The first answer must equal what a redelivery reads back from the database: JSON, not live objects.
        const outcome: CommandOutcome = {
          ok: true,
          value: JSON.parse(JSON.stringify(value ?? null)) as unknown,
        };
        processed.push({
          commandId: message.id,
          subject: message.subject,
          outcome,
          issuedAt: message.issuedAt,
          correlationId: message.correlationId,
          actorUserId: message.actorUserId,
        });
        applied.push({ outcome, duplicate: false, events });
      }
      // Rows in apply order: the outbox relays by `seq`, and a rebuild follows `processed_at`
      // (clock_timestamp() is taken row by row, in order).
      await this.statements.record(manager, outbox, processed);
      for (const { message } of items) this.faults.maybeCrash('crash-before-commit', message.subject);
      return applied;
    });
    for (const { message } of items) this.faults.maybeCrash('crash-after-commit', message.subject);
    return results;
  }

  /**
   * The refusal, dated by the database's clock before the transaction rolls back. The rollback releases the locks the
   * effect took (a placement's ledger lock, say), and the failure is recorded after it, in a transaction of its own:
   * dated then, a release that took the lock in between would be dated before the refusal it did not cause, and a
   * rebuild (which follows processed_at) would apply it first and place what was refused. Undated (the clock at the
   * write, as before) if the transaction can no longer answer (a failed write aborted it).
   */
  private async refusal(manager: EntityManager, error: DomainError): Promise<Refusal> {
    const rows = await manager
      .query<{ at: string }[]>('SELECT clock_timestamp()::text AS at')
      .catch(() => [] as { at: string }[]);
    return new Refusal(error, rows[0]?.at ?? null);
  }

  private row(
    message: MessageIdentity,
    outcome: CommandOutcome,
    decidedAt: string | null = null,
  ): QueryDeepPartialEntity<ProcessedCommandEntity> {
    return {
      commandId: message.id,
      subject: message.subject,
      outcome: outcome as never,
      issuedAt: new Date(message.issuedAt),
      // The moment of the write, not the transaction's start (`now()`): rows of different domains and apps then
      // sort in the order they were applied, which a rebuild follows (docs/adr/0011-replay-and-rebuild.md).
      processedAt: () => (decidedAt === null ? 'clock_timestamp()' : ':decidedAt::timestamptz'),
      correlationId: message.correlationId,
      actorUserId: message.actorUserId,
    };
  }
}
