import { randomUUID } from 'node:crypto';
import { DataSource, type Logger } from 'typeorm';
import { BaseConfig } from '@app/config';
import {
  CommandPayloadClasses,
  DomainError,
  ErrorCode,
  deriveId,
  validatePlain,
  type Actor,
  type AppName,
  type CommandEnvelope,
  type CommandResult,
  type CommandSubject,
  type QueryPayload,
  type QueryResult,
  type QuerySubject,
  type RecordedDecision,
} from '@app/contracts';
import { appDataSourceOptions, type AppDataSourceSpec } from '@app/database';
import {
  COMMAND_HANDLER,
  EVENT_HANDLER,
  FaultInjector,
  MessageProcessor,
  commandIdentity,
  type CommandBus,
  type CommandContext,
  type EventContext,
  type OutboxTableRow,
  type QueryBus,
} from '@app/messaging';
import { SchemaWrites } from './schema-writes.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** The actor of the commands a test sends, unless it names another. */
export const ALICE: Actor = { userId: 'user-alice', kind: 'user' };
export const BOB: Actor = { userId: 'user-bob', kind: 'user' };

type Answer<S extends QuerySubject> = (payload: QueryPayload<S>, actor: Actor) => QueryResult<S>;

/**
 * Another app's answers to the queries a handler asks (a template, a volume, the spend status), for the handlers
 * that ask any: what the test registered, and OWNER_UNAVAILABLE (as from the bus when nobody answers) for the rest.
 * Only the other app is stood in for; the handler, its repositories, Postgres and the transaction are real.
 */
export class InProcessQueries {
  private readonly answers = new Map<string, (payload: never, actor: Actor) => unknown>();
  /** Every query asked, in order. */
  readonly asked: { subject: string; payload: unknown; actor: Actor }[] = [];

  answer<S extends QuerySubject>(subject: S, answer: Answer<S>): this {
    this.answers.set(subject, answer);
    return this;
  }

  /** From now on nobody answers `subject` (OWNER_UNAVAILABLE), as when its owner is down. */
  forget(subject: QuerySubject): this {
    this.answers.delete(subject);
    return this;
  }

  query<S extends QuerySubject>(subject: S, payload: QueryPayload<S>, actor: Actor): Promise<QueryResult<S>> {
    this.asked.push({ subject, payload, actor });
    const answer = this.answers.get(subject);
    if (!answer) {
      return Promise.reject(
        new DomainError(ErrorCode.OwnerUnavailable, `no answer for ${subject} in this test`),
      );
    }
    try {
      return Promise.resolve(answer(payload as never, actor) as QueryResult<S>);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Typed as the QueryBus a handler takes: only `query` is ever called by the handlers tested this way. */
  asBus(): QueryBus {
    return this as unknown as QueryBus;
  }
}

/**
 * The bus a handler issues another app's commands on (pod-lifecycle's `placement.cmd.reserve`, say), delivering
 * them to that app's real handlers in its own harness, with the command id and time the issuer chose, as the
 * owner's consumer would.
 */
export class InProcessCommands {
  constructor(private readonly owner: HandlerHarness) {}

  execute<S extends CommandSubject>(
    subject: S,
    payload: unknown,
    actor: Actor,
    options: { commandId?: string; issuedAt?: string } = {},
  ): Promise<CommandResult<S>> {
    return this.owner.send(subject, payload, { actor, ...options });
  }

  /**
   * What CommandBus.recordReaction does, and the owner's consumer after it: the command (its id derived from the
   * event's) is applied at once, in a transaction of its own; a refusal is the command's outcome, not an error.
   */
  async recordReaction(
    event: { eventId: string; occurredAt: string },
    part: string,
    subject: CommandSubject,
    payload: unknown,
    userId: string,
  ): Promise<void> {
    await this.owner
      .send(subject, payload, {
        actor: { userId, kind: 'system' },
        commandId: deriveId(event.eventId, part),
        issuedAt: event.occurredAt,
      })
      .catch(() => undefined);
  }

  /** Typed as the CommandBus a handler takes: `execute` and `recordReaction` are what it offers. */
  asBus(): CommandBus {
    return this as unknown as CommandBus;
  }
}

/** Counts the statements the data source sends (its only log), so a test can pin what a command costs. */
class StatementCounter implements Logger {
  count = 0;
  logQuery(): void {
    this.count += 1;
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

export interface SendOptions {
  actor?: Actor;
  commandId?: string;
  /** The command's time (`ctx.now`); a fixed instant by default. */
  issuedAt?: string;
  /** What a rebuild's replay feed passes (`ctx.decided`): the live application's recorded decision (ADR 28). */
  decided?: RecordedDecision;
  /** false: the handler may not guess (`ctx.mayGuess`), as when its command is applied in a batch. */
  mayGuess?: false;
}

/**
 * The medium level of handler tests: an app's command handlers over a real Postgres database made from the app's
 * own migrations, and an in-process bus in place of NATS, which does what the app's consumer does with a
 * delivered command: validates the payload against the contract map, builds the CommandContext and applies the
 * handler through the real MessageProcessor (one transaction with the processed-commands row and the outbox, a
 * DomainError recorded as the answer and its writes rolled back).
 */
export class HandlerHarness {
  private readonly handlers = new Map<string, (ctx: CommandContext) => unknown>();
  private readonly eventHandlers = new Map<string, (ctx: EventContext) => unknown>();
  /** Per source harness: the outbox sequence delivered up to. */
  private readonly delivered = new Map<HandlerHarness, string>();
  private readonly processor: MessageProcessor;
  private readonly writes: SchemaWrites;

  private constructor(
    private readonly database: TestDatabase,
    readonly dataSource: DataSource,
    private readonly schema: string,
    private readonly counter: StatementCounter,
  ) {
    this.processor = new MessageProcessor(dataSource, new FaultInjector(new BaseConfig()));
    this.writes = new SchemaWrites(dataSource, schema);
  }

  static async start(label: string, app: AppName, spec: AppDataSourceSpec): Promise<HandlerHarness> {
    const database = await createTestDatabase(label, { apps: [app] });
    const counter = new StatementCounter();
    const dataSource = new DataSource({
      ...appDataSourceOptions(spec, database.url, 3, `${label}-int-spec`),
      logging: ['query'],
      logger: counter,
    });
    try {
      await dataSource.initialize();
    } catch (error) {
      await database.drop();
      throw error;
    }
    return new HandlerHarness(database, dataSource, spec.schema, counter);
  }

  /** Registers the @CommandHandler and @EventHandler methods of these handler instances. */
  register(...instances: object[]): this {
    for (const instance of instances) {
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const method = prototype[name];
        if (typeof method !== 'function') continue;
        const command = Reflect.getMetadata(COMMAND_HANDLER, method) as string | undefined;
        if (command) this.handlers.set(command, (method as (ctx: CommandContext) => unknown).bind(instance));
        const event = Reflect.getMetadata(EVENT_HANDLER, method) as string | undefined;
        if (event) this.eventHandlers.set(event, (method as (ctx: EventContext) => unknown).bind(instance));
      }
    }
    return this;
  }

  /** Sends a command as the app's consumer applies it: its recorded answer, or the DomainError it was refused with. */
  async send<S extends CommandSubject>(
    subject: S,
    payload: unknown,
    options: SendOptions = {},
  ): Promise<CommandResult<S>> {
    const handler = this.handlers.get(subject);
    if (!handler) throw new Error(`no handler registered for ${subject}`);
    const envelope: CommandEnvelope = {
      commandId: options.commandId ?? randomUUID(),
      issuedAt: options.issuedAt ?? '2026-03-01T12:00:00.000Z',
      actor: options.actor ?? ALICE,
      correlationId: `corr-${randomUUID()}`,
      subject,
      payload,
    };
    const identity = commandIdentity(subject, envelope);
    const validated = validatePlain(CommandPayloadClasses[subject] as new () => object, payload);
    const result = !validated.ok
      ? // Recorded as the consumer records it: the answer to this command id from now on.
        await this.processor.recordFailure(identity, {
          code: ErrorCode.ValidationFailed,
          message: `invalid ${subject} command`,
          errors: validated.errors,
        })
      : await this.processor.process(identity, (manager, emit, shape) =>
          Promise.resolve(
            handler({
              envelope,
              payload: validated.value,
              manager,
              now: new Date(envelope.issuedAt),
              emit,
              decided: options.decided,
              mayGuess: shape.mayGuess && options.mayGuess !== false,
            }),
          ),
        );
    if (!result.outcome.ok) throw DomainError.fromPayload(result.outcome.error);
    return result.outcome.value as CommandResult<S>;
  }

  /** What `work` answers, and how many statements (transaction control included) it sent to Postgres. */
  async statements<T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> {
    const before = this.counter.count;
    const result = await work();
    return { result, statements: this.counter.count - before };
  }

  /**
   * Delivers the events `source` committed since the last delivery to this app's event handlers, in order, each
   * applied once as the app's event consumer applies it (its processed row keyed by the event id and the app).
   * The number applied.
   */
  async deliverFrom(source: HandlerHarness): Promise<number> {
    const after = this.delivered.get(source) ?? '0';
    const rows = await source.dataSource.query<OutboxTableRow[]>(
      `SELECT id, seq, subject, payload, correlation_id, occurred_at FROM "${source.schema}".outbox
       WHERE seq > $1 ORDER BY seq`,
      [after],
    );
    let applied = 0;
    for (const row of rows) {
      this.delivered.set(source, row.seq);
      const handler = this.eventHandlers.get(row.subject);
      if (!handler) continue;
      const event = {
        eventId: row.id,
        subject: row.subject,
        occurredAt: row.occurred_at.toISOString(),
        correlationId: row.correlation_id,
        payload: row.payload,
      };
      const identity = {
        id: `evt:${row.id}:${this.schema}`,
        subject: row.subject,
        issuedAt: event.occurredAt,
        correlationId: row.correlation_id,
        actorUserId: 'system',
      };
      const result = await this.processor.process(identity, (manager, emit) =>
        Promise.resolve(handler({ event, manager, emit })),
      );
      if (!result.duplicate) applied += 1;
    }
    return applied;
  }

  /**
   * The tables whose rows `work` changed, the processed-commands row every command records left out (a refusal is
   * recorded there as the command's answer): [] when it wrote nothing, with `outbox` among them when it emitted.
   * Each table is compared whole (a digest of its rows), so an update counts as well as an insert or a delete.
   */
  async wrote<T>(work: () => Promise<T>): Promise<{ result: T; wrote: string[] }> {
    const before = await this.writes.digests();
    const result = await work();
    return { result, wrote: await this.writes.changedSince(before) };
  }

  /** The refusal `work` ends in (as `refusalOf`) and the tables it changed nonetheless (as `wrote`). */
  async refusal(work: () => Promise<unknown>): Promise<Refusal & { wrote: string[] }> {
    const before = await this.writes.digests();
    const refusal = await refusalOf(work());
    return { ...refusal, wrote: await this.writes.changedSince(before) };
  }

  /** The events committed to the outbox, in the order they were written: subject and payload. */
  async events(subject?: string): Promise<{ subject: string; payload: unknown }[]> {
    const rows = await this.dataSource.query<{ subject: string; payload: unknown }[]>(
      `SELECT subject, payload FROM "${this.schema}".outbox ${subject ? 'WHERE subject = $1' : ''}
       ORDER BY seq`,
      subject ? [subject] : [],
    );
    return rows;
  }

  async stop(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.database.drop();
  }
}

/** A command's refusal: its code and message (and field errors). */
export interface Refusal {
  code: string;
  message: string;
  errors?: string[];
}

/** The refusal a promise ends in: its code and message (and field errors), for `expect(...).toMatchObject`. */
export async function refusalOf(promise: Promise<unknown>): Promise<Refusal> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) {
      return { code: error.code, message: error.message, errors: error.errors };
    }
    throw error;
  }
  throw new Error('expected a refusal, got an answer');
}
