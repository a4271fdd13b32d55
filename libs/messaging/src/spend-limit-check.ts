import type { Logger } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  assertUnderSpendLimit,
  type CommandEnvelope,
} from '@app/contracts';
import type { QueryBus } from './query-bus.js';

/** How long the spend query may take before the check fails open. */
const SPEND_QUERY_TIMEOUT_MS = 1000;
/** After pod-lifecycle did not answer, how long checks are skipped rather than each waiting for it again. */
const SKIP_AFTER_UNAVAILABLE_MS = 10_000;

let unavailableUntil = 0;

/**
 * The spend-limit rule for an owner other than pod-lifecycle (which meters spend and checks it itself): asks
 * pod-lifecycle for the issuer's spend up to the command's time and refuses `work` with SPEND_LIMIT_REACHED (402)
 * once the limit is reached (docs/adr/0023-spend-limits.md). Fails open, with a warning, while pod-lifecycle does
 * not answer: what the work would start needs pod-lifecycle anyway, and is checked there. The owner's commands of
 * that domain are applied one after another, so a check that waited out the bus timeout on each command would
 * hold all of them up (50 cluster creates × 5 s): the query gets one second, and after a miss the checks are
 * skipped for ten seconds.
 */
export async function checkSpendLimit(
  queries: QueryBus,
  envelope: Pick<CommandEnvelope, 'issuedAt' | 'actor'>,
  work: string,
  logger: Pick<Logger, 'warn'>,
): Promise<void> {
  if (Date.now() < unavailableUntil) return;
  const spend = await queries
    .query(Subjects.spend.status, { at: envelope.issuedAt, check: true }, envelope.actor, {
      timeoutMs: SPEND_QUERY_TIMEOUT_MS,
    })
    .catch((error: unknown) => {
      if (!(error instanceof DomainError) || error.code !== ErrorCode.OwnerUnavailable) throw error;
      unavailableUntil = Date.now() + SKIP_AFTER_UNAVAILABLE_MS;
      logger.warn(
        `${work}: spend limit not checked (${error.message}); not checked for the next ` +
          `${SKIP_AFTER_UNAVAILABLE_MS / 1000} s`,
      );
      return null;
    });
  if (spend) assertUnderSpendLimit(spend, work);
}
