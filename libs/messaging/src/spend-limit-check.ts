import type { Logger } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  assertUnderSpendLimit,
  type CommandEnvelope,
} from '@app/contracts';
import type { QueryBus } from './query-bus.js';

/**
 * The spend-limit rule for an owner other than pod-lifecycle (which meters spend and checks it itself): asks
 * pod-lifecycle for the issuer's spend up to the command's time and refuses `work` with SPEND_LIMIT_REACHED (402)
 * once the limit is reached (docs/adr/0023-spend-limits.md). Fails open, with a warning, while pod-lifecycle does
 * not answer: what the work would start needs pod-lifecycle anyway, and is checked there.
 */
export async function checkSpendLimit(
  queries: QueryBus,
  envelope: Pick<CommandEnvelope, 'issuedAt' | 'actor'>,
  work: string,
  logger: Pick<Logger, 'warn'>,
): Promise<void> {
  const spend = await queries
    .query(Subjects.spend.status, { at: envelope.issuedAt, check: true }, envelope.actor)
    .catch((error: unknown) => {
      if (!(error instanceof DomainError) || error.code !== ErrorCode.OwnerUnavailable) throw error;
      logger.warn(`${work}: spend limit not checked: ${error.message}`);
      return null;
    });
  if (spend) assertUnderSpendLimit(spend, work);
}
