import { randomUUID } from 'node:crypto';
import { DataSource, type Logger } from 'typeorm';
import { BaseConfig } from '@app/config';
import {
  COMMAND_FORMAT,
  CommandPayloadClasses,
  DomainError,
  ErrorCode,
  QueryPayloadClasses,
  validatePlain,
  type Actor,
  type AppName,
  type CommandEnvelope,
  type CommandResult,
  type CommandSubject,
  type QueryResult,
  type QuerySubject,
  type RecordedDecision,
} from '@app/contracts';
import { appDataSourceOptions, type AppDataSourceSpec } from '@app/database';
import {
  COMMAND_HANDLER,
  FaultInjector,
  MessageProcessor,
  QUERY_HANDLER,
  commandIdentity,
  type CommandContext,
  type Effect,
  type QueryContext,
} from '@app/messaging';
import { SchemaWrites } from './schema-writes.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** The actor of the commands a test sends, unless it names another. */
export const ALICE: Actor = { userId: 'user-alice', kind: 'user' };
export const BOB: Actor = { userId: 'user-bob', kind: 'user' };

export { InProcessCommands, InProcessQueries } from './in-process-buses.js';

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
  /** The command format it was recorded in: COMMAND_FORMAT by default, an older one for a replayed history. */
  format?: number;
}

/**
 * The medium level of handler tests: an app's command handlers over a real Postgres database made from the app's
 * own migrations, and an in-process bus in place of NATS, which does what the app's consumer does with a
 * delivered command: validates the payload against the contract map, builds the CommandContext and applies the
 * handler through the real MessageProcessor (one transaction with the processed-commands row and the outbox, a
 * DomainError recorded as the answer and its writes rolled back). Its query handlers answer as the app's query
 * server does (`query`).
 */
export class HandlerHarness {
  private readonly handlers = new Map<string, (ctx: CommandContext) => unknown>();
  private readonly queryHandlers = new Map<string, (ctx: QueryContext) => unknown>();
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

  /** Registers the @CommandHandler and @QueryHandler methods of these handler instances. */
  register(...instances: object[]): this {
    for (const instance of instances) {
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const method = prototype[name];
        if (typeof method !== 'function') continue;
        const command = Reflect.getMetadata(COMMAND_HANDLER, method) as string | undefined;
        if (command) this.handlers.set(command, (method as (ctx: CommandContext) => unknown).bind(instance));
        const query = Reflect.getMetadata(QUERY_HANDLER, method) as string | undefined;
        if (query) this.queryHandlers.set(query, (method as (ctx: QueryContext) => unknown).bind(instance));
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
    const { identity, validated, effect } = this.command(subject, payload, options);
    const result = !validated.ok
      ? // Recorded as the consumer records it: the answer to this command id from now on.
        await this.processor.recordFailure(identity, {
          code: ErrorCode.ValidationFailed,
          message: `invalid ${subject} command`,
          errors: validated.errors,
        })
      : await this.processor.process(identity, effect);
    if (!result.outcome.ok) throw DomainError.fromPayload(result.outcome.error);
    return result.outcome.value as CommandResult<S>;
  }

  /**
   * Valid commands applied as one lane's batch (MessageProcessor.processBatch: one transaction, in order, first
   * deliveries): each one's recorded answer, or the DomainError it was refused with.
   */
  async sendBatch(commands: { subject: CommandSubject; payload: unknown }[]): Promise<unknown[]> {
    const items = commands.map(({ subject, payload }) => {
      const { identity, validated, effect } = this.command(subject, payload, {});
      if (!validated.ok) throw new Error(`invalid ${subject} command: ${validated.errors.join('; ')}`);
      return { message: identity, effect, fresh: true, ahead: { subject, payload: validated.value } };
    });
    const results = await this.processor.processBatch(items);
    return results.map((result) => {
      if (result instanceof Error) throw result;
      return result.outcome.ok ? result.outcome.value : DomainError.fromPayload(result.outcome.error);
    });
  }

  /** A command as the consumer reads it: its identity, its validated payload and the handler's effect. */
  private command(subject: CommandSubject, payload: unknown, options: SendOptions) {
    const handler = this.handlers.get(subject);
    if (!handler) throw new Error(`no handler registered for ${subject}`);
    const envelope: CommandEnvelope = {
      commandId: options.commandId ?? randomUUID(),
      issuedAt: options.issuedAt ?? '2026-03-01T12:00:00.000Z',
      actor: options.actor ?? ALICE,
      correlationId: `corr-${randomUUID()}`,
      subject,
      payload,
      format: options.format ?? COMMAND_FORMAT,
    };
    const identity = commandIdentity(subject, envelope);
    const validated = validatePlain(CommandPayloadClasses[subject], payload);
    const effect: Effect = (manager, emit, later = []) =>
      Promise.resolve(
        handler({
          envelope,
          payload: validated.ok ? validated.value : payload,
          manager,
          now: new Date(envelope.issuedAt),
          emit,
          decided: options.decided,
          later,
        }),
      );
    return { identity, validated, effect };
  }

  /**
   * Asks a query as the app's query server answers it (QueryServer): the payload validated against the contract
   * map (422 if it fails), the handler's answer as it crosses the wire (through JSON), or the DomainError it
   * refused with.
   */
  async query<S extends QuerySubject>(
    subject: S,
    payload: unknown,
    options: { actor?: Actor } = {},
  ): Promise<QueryResult<S>> {
    const handler = this.queryHandlers.get(subject);
    if (!handler) throw new Error(`no query handler registered for ${subject}`);
    const validated = validatePlain(QueryPayloadClasses[subject] as new () => object, payload ?? {});
    if (!validated.ok) {
      throw new DomainError(ErrorCode.ValidationFailed, `invalid ${subject} query`, validated.errors);
    }
    const answer = await handler({
      actor: options.actor ?? ALICE,
      correlationId: `corr-${randomUUID()}`,
      payload: validated.value,
    });
    return JSON.parse(JSON.stringify(answer ?? null)) as QueryResult<S>;
  }

  /** What `work` answers, and how many statements (transaction control included) it sent to Postgres. */
  async statements<T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> {
    const before = this.counter.count;
    const result = await work();
    return { result, statements: this.counter.count - before };
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
