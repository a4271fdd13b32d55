import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { headers as natsHeaders, type Msg, type Subscription } from '@nats-io/transport-node';
import {
  DomainError,
  ErrorCode,
  QueryPayloadClasses,
  commandOutcomeSubject,
  domainsOwnedBy,
  validatePlain,
  type CommandOutcome,
  type QueryEnvelope,
  type QuerySubject,
} from '@app/contracts';
import { isDatabaseUnavailable } from '@app/database';
import { busMetrics, requestContext } from '@app/observability';
import type { QueryContext } from './handler-context.js';
import { HandlerRegistry, type BoundHandler } from './handler-registry.js';
import { MessageProcessor } from './message-processor.js';
import { QueryAnswer, answerHeaders, okOutcomeBytes } from './query-answer.js';
import { MESSAGING_OPTIONS, type MessagingOptions } from './messaging.options.js';
import { NatsClient } from './nats-client.js';

/**
 * Answers the app's query subjects (core NATS request-reply, queue group per app so replicas share the load),
 * and, for every owned domain, the recorded outcome of a command.
 */
@Injectable()
export class QueryServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('queries');
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly nats: NatsClient,
    private readonly registry: HandlerRegistry,
    private readonly processor: MessageProcessor,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
  ) {}

  onApplicationBootstrap(): void {
    for (const [subject, handler] of this.registry.queries) this.serve(subject, this.typed(subject, handler));
    for (const domain of domainsOwnedBy(this.options.app)) {
      this.serve(commandOutcomeSubject(domain), (envelope) =>
        this.processor.find((envelope.payload as { commandId?: string }).commandId ?? ''),
      );
    }
  }

  beforeApplicationShutdown(): void {
    for (const sub of this.subscriptions) sub.unsubscribe();
  }

  private typed(subject: string, handler: BoundHandler) {
    const payloadClass = QueryPayloadClasses[subject as QuerySubject] as (new () => object) | undefined;
    return (envelope: QueryEnvelope): unknown => {
      if (!payloadClass) throw new DomainError(ErrorCode.Internal, `no payload class for ${subject}`);
      const validated = validatePlain(payloadClass, envelope.payload ?? {});
      if (!validated.ok) {
        throw new DomainError(ErrorCode.ValidationFailed, `invalid ${subject} query`, validated.errors);
      }
      const context: QueryContext = {
        actor: envelope.actor,
        correlationId: envelope.correlationId,
        payload: validated.value,
      };
      return handler(context as never);
    };
  }

  private serve(subject: string, handle: (envelope: QueryEnvelope) => unknown): void {
    const sub = this.nats.nc.subscribe(this.nats.subject(subject), {
      queue: this.nats.consumerName(this.options.app),
      callback: (error, msg) => {
        if (error) {
          this.logger.error(`subscription ${subject} failed: ${error.message}`);
          return;
        }
        void this.answer(subject, msg, handle);
      },
    });
    this.subscriptions.push(sub);
  }

  private async answer(
    subject: string,
    msg: Msg,
    handle: (envelope: QueryEnvelope) => unknown,
  ): Promise<void> {
    let envelope: QueryEnvelope;
    try {
      envelope = msg.json<QueryEnvelope>();
    } catch {
      this.reply(msg, subject, {
        ok: false,
        error: { code: ErrorCode.BadRequest, message: 'query is not JSON' },
      });
      return;
    }
    await requestContext.run({ correlationId: envelope.correlationId ?? randomUUID() }, async () => {
      try {
        const value = await handle(envelope);
        if (value instanceof QueryAnswer) {
          busMetrics.queriesServed.inc({ subject, outcome: 'ok' });
          msg.respond(okOutcomeBytes(value), { headers: answerHeaders(value, natsHeaders) });
          return;
        }
        this.reply(msg, subject, { ok: true, value: value ?? null });
      } catch (error) {
        if (error instanceof DomainError) {
          this.reply(msg, subject, { ok: false, error: error.toPayload() });
          return;
        }
        const errorId = randomUUID();
        this.logger.error({ errorId, err: error }, `query ${subject} failed`);
        const unavailable =
          isDatabaseUnavailable(error) || /connect|terminat|timeout/i.test((error as Error).message);
        this.reply(msg, subject, {
          ok: false,
          error: unavailable
            ? {
                code: ErrorCode.DependencyUnavailable,
                message: `${this.options.app} cannot reach its database`,
              }
            : { code: ErrorCode.Internal, message: `internal error ${errorId}` },
        });
      }
    });
  }

  private reply(msg: Msg, subject: string, outcome: CommandOutcome): void {
    busMetrics.queriesServed.inc({ subject, outcome: outcome.ok ? 'ok' : outcome.error.code });
    msg.respond(JSON.stringify(outcome));
  }
}
