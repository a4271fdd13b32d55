import { Domain, Subjects, domainOf } from './subjects.js';

/**
 * How an owner spreads the commands of a domain over its parallel lanes (docs/adr/0013-command-batching-and-lanes.md).
 * Commands with the same key are applied one after another, in the order they were recorded; commands with
 * different keys may be applied side by side. The key therefore names what a command locks and waits for:
 *
 * - worker commands: the worker. Each one touches its own worker row, and the jobs it locks without skipping are
 *   leased to that worker; takes claim queued jobs with SKIP LOCKED, so workers of one endpoint never wait on
 *   each other, and two lanes never lock the same worker row in opposite orders.
 * - job commands: the job (a submit names none yet: its command id, since its job id derives from it; a submit-many
 *   likewise, its jobs being new); purge and sweep, which lock many jobs, a lane of their own per endpoint or
 *   command; a webhook secret rotation, the endpoint's lane (two rotations apply in the order they were recorded).
 *
 * Domains not listed keep one lane: their commands are rare, and their rules (placement, pod status) were written
 * for one writer per app.
 */
const PARTITIONED: Partial<Record<Domain, (subject: string, payload: Record<string, unknown>) => unknown>> = {
  [Domain.Worker]: (_subject, p) => p.workerId,
  [Domain.Job]: (subject, p) =>
    subject === Subjects.job.submit || subject === Subjects.job.submitMany
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

/**
 * What a command's effect may touch, for a replay that applies recorded commands side by side
 * (docs/adr/0025-replay-speed.md): commands whose scopes share nothing, even through others, commute, so a replay
 * may apply them in parallel lanes and still get what applying them in order gives. A job or worker command
 * touches its endpoint's queue and counters, its jobs and the worker's row: scope `endpoint:<id>` (and
 * `worker:<id>`, since a worker id could be reused under another endpoint). Null: anything of its owner (a
 * sweep across endpoints, and every domain not listed), applied alone, after what came before it.
 */
export function replayScopeOf(subject: string, payload: unknown): string[] | null {
  const domain = domainOf(subject);
  if (domain !== Domain.Job && domain !== Domain.Worker) return null;
  const p = (payload && typeof payload === 'object' ? payload : {}) as Record<string, unknown>;
  if (typeof p.endpointId !== 'string' || !p.endpointId) return null;
  const scope = [`endpoint:${p.endpointId}`];
  if (typeof p.workerId === 'string' && p.workerId) scope.push(`worker:${p.workerId}`);
  return scope;
}
