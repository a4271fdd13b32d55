import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { DomainError, ErrorCode, deriveId, type CommandOutcome, type ErrorPayload } from '@app/contracts';
import { OutboxMessageEntity, ProcessedCommandEntity } from '@app/database';
import { FaultInjector } from './fault-injector.js';

/** The identity of a message to apply once: a command (command id) or an event (event id). */
export interface MessageIdentity {
  id: string;
  subject: string;
  issuedAt: string;
  correlationId: string;
  actorUserId: string;
}

export type Emit = (subject: string, payload: unknown, part?: string | number) => Promise<void>;
export type Effect = (manager: EntityManager, emit: Emit) => Promise<unknown>;

export interface ProcessResult {
  outcome: CommandOutcome;
  /** True when the message had been applied before: nothing was changed this time. */
  duplicate: boolean;
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '23505';
}

/**
 * Applies a message exactly once: the effect, its outbox events and the processed-commands row commit in one
 * transaction. A redelivery or a replay finds the row and returns the recorded outcome. A DomainError is an
 * answer, recorded too (the same command always gets the same answer); any other error propagates so the
 * transport redelivers.
 */
@Injectable()
export class MessageProcessor {
  constructor(
    private readonly dataSource: DataSource,
    private readonly faults: FaultInjector,
  ) {}

  async find(id: string): Promise<CommandOutcome | null> {
    const row = await this.dataSource.manager.findOne(ProcessedCommandEntity, { where: { commandId: id } });
    return row?.outcome ?? null;
  }

  async process(message: MessageIdentity, effect: Effect): Promise<ProcessResult> {
    const recorded = await this.find(message.id);
    if (recorded) return { outcome: recorded, duplicate: true };
    try {
      const outcome = await this.dataSource.transaction(async (manager) => {
        const emitted = new Map<string, number>();
        const emit: Emit = async (subject, payload, part) => {
          // Several events of one subject in one command get distinct, still deterministic, ids.
          const n = emitted.get(subject) ?? 0;
          emitted.set(subject, n + 1);
          await manager.insert(OutboxMessageEntity, {
            id: deriveId(message.id, `evt/${subject}/${part ?? n}`, 24),
            subject,
            payload: payload as object,
            correlationId: message.correlationId,
            occurredAt: new Date(message.issuedAt),
            publishedAt: null,
          });
        };
        const value = await effect(manager, emit);
        // The first answer must equal what a redelivery reads back from the database: JSON, not live objects.
        const outcome: CommandOutcome = {
          ok: true,
          value: JSON.parse(JSON.stringify(value ?? null)) as unknown,
        };
        await manager.insert(ProcessedCommandEntity, this.row(message, outcome));
        this.faults.maybeCrash('crash-before-commit', message.subject);
        return outcome;
      });
      this.faults.maybeCrash('crash-after-commit', message.subject);
      return { outcome, duplicate: false };
    } catch (error) {
      if (error instanceof DomainError) return this.recordFailure(message, error.toPayload());
      if (isUniqueViolation(error)) {
        // Another delivery of the same message committed first.
        const winner = await this.find(message.id);
        if (winner) return { outcome: winner, duplicate: true };
      }
      throw error;
    }
  }

  /** Records a failed outcome; if an outcome was recorded meanwhile, that one stands. */
  async recordFailure(message: MessageIdentity, error: ErrorPayload): Promise<ProcessResult> {
    const outcome: CommandOutcome = { ok: false, error };
    const inserted = await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(ProcessedCommandEntity)
      .values(this.row(message, outcome))
      .orIgnore()
      .returning(['commandId'])
      .execute();
    if (inserted.raw && (inserted.raw as unknown[]).length) return { outcome, duplicate: false };
    const winner = await this.find(message.id);
    return { outcome: winner ?? outcome, duplicate: true };
  }

  static internalError(message: string): ErrorPayload {
    return { code: ErrorCode.Internal, message };
  }

  private row(
    message: MessageIdentity,
    outcome: CommandOutcome,
  ): QueryDeepPartialEntity<ProcessedCommandEntity> {
    return {
      commandId: message.id,
      subject: message.subject,
      outcome: outcome as never,
      issuedAt: new Date(message.issuedAt),
      // The moment of the write, not the transaction's start (`now()`): rows of different domains and apps then
      // sort in the order they were applied, which a rebuild follows (docs/adr/0011-replay-and-rebuild.md).
      processedAt: () => 'clock_timestamp()',
      correlationId: message.correlationId,
      actorUserId: message.actorUserId,
    };
  }
}
