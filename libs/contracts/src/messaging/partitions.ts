import { Domain, Subjects, domainOf } from './subjects.js';

/**
 * How an owner spreads the commands of a domain over its parallel lanes (docs/adr/0013-command-batching-and-lanes.md).
 * Commands with the same key are applied one after another, in the order they were recorded; commands with
 * different keys may be applied side by side. The key therefore names what a command locks and waits for:
 *
 * - worker commands: the worker. Each one touches its own worker row, and the jobs it locks without skipping are
 *   leased to that worker; takes claim queued jobs with SKIP LOCKED, so workers of one endpoint never wait on
 *   each other, and two lanes never lock the same worker row in opposite orders.
 * - job commands: the job (a submit names none yet: its command id, since its job id derives from it); purge and
 *   sweep, which lock many jobs, a lane of their own per endpoint or command; a webhook secret rotation, the
 *   endpoint's lane (two rotations apply in the order they were recorded).
 *
 * Domains not listed keep one lane: their commands are rare, and their rules (placement, pod status) were written
 * for one writer per app.
 */
const PARTITIONED: Partial<Record<Domain, (subject: string, payload: Record<string, unknown>) => unknown>> = {
  [Domain.Worker]: (_subject, p) => p.workerId,
  [Domain.Job]: (subject, p) =>
    subject === Subjects.job.submit
      ? undefined
      : subject === Subjects.job.purge || subject === Subjects.job.rotateWebhookSecret
        ? p.endpointId
        : p.jobId,
};

/** The lane key of a command, or null when its domain keeps one lane. */
export function partitionKeyOf(subject: string, payload: unknown, commandId: string): string | null {
  const keyOf = PARTITIONED[domainOf(subject)];
  if (!keyOf) return null;
  const key =
    payload && typeof payload === 'object' ? keyOf(subject, payload as Record<string, unknown>) : undefined;
  return typeof key === 'string' && key ? key : commandId;
}
