import { Inject, Injectable } from '@nestjs/common';
import {
  CommandPayloadClasses,
  DomainError,
  ErrorCode,
  isRefusalDecision,
  validatePlain,
  type CommandEnvelope,
  type CommandSubject,
  type RecordedDecision,
} from '@app/contracts';
import { requestContext } from '@app/observability';
import type { CommandContext } from './handler-context.js';
import { HandlerRegistry } from './handler-registry.js';
import type { BatchItem, MessageIdentity, ProcessResult } from './applied-message.js';
import { MessageProcessor } from './message-processor.js';
import { MESSAGING_OPTIONS, type MessagingOptions } from './messaging.options.js';

/**
 * What applying a command does, for the live consumers (DeliveryApplier) and the replay feed (ReplayFeed) alike, so
 * that a rebuild validates and refuses exactly as the live application did: the handler's effect on a validated
 * payload; or, when the command cannot be applied, its answer (no handler: an error to retry; an invalid payload:
 * the recorded ValidationFailed outcome; a refusal the live application recorded: that refusal again, ADR 11).
 */
@Injectable()
export class CommandWork {
  constructor(
    private readonly registry: HandlerRegistry,
    private readonly processor: MessageProcessor,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
  ) {}

  /** `decided`: what the live application decided (CommandContext), when a replay knows it. */
  async of(
    identity: MessageIdentity,
    envelope: CommandEnvelope,
    decided?: RecordedDecision,
  ): Promise<BatchItem | ProcessResult | Error> {
    const subject = identity.subject;
    const handler = this.registry.commands.get(subject);
    const payloadClass: (new () => object) | undefined = CommandPayloadClasses[subject as CommandSubject];
    if (!handler || !payloadClass) {
      return new DomainError(ErrorCode.Internal, `no handler for ${subject} in ${this.options.app}`);
    }
    // Refused live because a dependency did not answer: the same refusal, not a new try (ADR 11).
    if (isRefusalDecision(decided)) {
      return this.processor.recordFailure(identity, decided.refused).catch((error: Error) => error);
    }
    const validated = validatePlain(payloadClass, envelope.payload);
    if (!validated.ok) {
      return this.processor
        .recordFailure(identity, {
          code: ErrorCode.ValidationFailed,
          message: `invalid ${subject} command`,
          errors: validated.errors,
        })
        .catch((error: Error) => error);
    }
    return {
      message: identity,
      effect: (manager, emit) => {
        const context: CommandContext = {
          envelope,
          payload: validated.value,
          manager,
          now: new Date(envelope.issuedAt),
          emit,
          decided,
        };
        return requestContext.run({ correlationId: identity.correlationId }, () =>
          Promise.resolve(handler(context as never)),
        );
      },
    };
  }
}
