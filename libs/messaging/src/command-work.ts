import { Inject, Injectable } from '@nestjs/common';
import {
  CommandPayloadClasses,
  DomainError,
  ErrorCode,
  Subjects,
  auditEntryOf,
  auditRuleOf,
  isRefusalDecision,
  validatePlain,
  type CommandEnvelope,
  type CommandSubject,
  type RecordedDecision,
} from '@app/contracts';
import { requestContext } from '@app/observability';
import type { CommandContext } from './handler-context.js';
import { HandlerRegistry } from './handler-registry.js';
import type { AuditOfRefusal, BatchItem, MessageIdentity, ProcessResult } from './applied-message.js';
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
    // One lookup per command; undefined for every subject of the job path, which then pays nothing more.
    const audit = auditOfRefusal(subject, envelope);
    // Refused live because a dependency did not answer: the same refusal, not a new try (ADR 11).
    if (isRefusalDecision(decided)) {
      return this.processor
        .recordFailure(identity, decided.refused, null, audit)
        .catch((error: Error) => error);
    }
    const validated = validatePlain(payloadClass, envelope.payload);
    if (!validated.ok) {
      return this.processor
        .recordFailure(
          identity,
          {
            code: ErrorCode.ValidationFailed,
            message: `invalid ${subject} command`,
            errors: validated.errors,
          },
          null,
          audit,
        )
        .catch((error: Error) => error);
    }
    const apply: BatchItem['effect'] = (manager, emit, later = []) => {
      const context: CommandContext = {
        envelope,
        payload: validated.value,
        manager,
        now: new Date(envelope.issuedAt),
        emit,
        decided,
        later,
      };
      return requestContext.run({ correlationId: identity.correlationId }, () =>
        Promise.resolve(handler(context as never)),
      );
    };
    return {
      message: identity,
      ...audited(subject, envelope, apply, audit),
      ahead: { subject, payload: validated.value },
    };
  }
}

/**
 * The effect of an audited command with its entry in the trail: a success's goes to the outbox in the command's own
 * transaction, after the handler's events; a refusal's is written with its failure row (`audit`, for the processor).
 * Any other subject's effect is returned as it is. The live consumers, the replay feed and the keys CLI (which
 * applies its own account commands) all apply commands through it, so a rebuild writes the entries live wrote.
 */
export function audited(
  subject: string,
  envelope: CommandEnvelope,
  apply: BatchItem['effect'],
  audit = auditOfRefusal(subject, envelope),
): { effect: BatchItem['effect']; audit?: AuditOfRefusal } {
  if (!audit) return { effect: apply };
  return {
    audit,
    effect: async (manager, emit, later) => {
      const value = await apply(manager, emit, later);
      // Only the result's top-level strings are read (a create's new id): the live value does.
      const entry = auditEntryOf({ ...envelope, subject }, { ok: true, value });
      if (entry) await emit(Subjects.audit.recorded, entry, 'audit');
      return value;
    },
  };
}

/** How an audited command's refusal is entered in the trail; undefined for a subject that is not audited. */
export function auditOfRefusal(subject: string, envelope: CommandEnvelope): AuditOfRefusal | undefined {
  if (!auditRuleOf(subject)) return undefined;
  return (error) => auditEntryOf({ ...envelope, subject }, { ok: false, error });
}
