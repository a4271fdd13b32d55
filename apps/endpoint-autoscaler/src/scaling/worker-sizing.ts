import { PodStatus } from '@app/contracts';
import type { ScalingDecision } from './desired-workers.js';
import type { Entry, PlanRecorder } from './plan-recorder.js';
import type { PlanInput, Tally } from './scaling-plan.types.js';

/**
 * The rules both kinds of endpoint share once they know how many workers they want: idleness, and scaling up
 * (FLASHBOOT resumes first, held back by recent refusals) or down (the longest idle first).
 */

/** A RUNNING worker with nothing to do is idle since it first was (kept in the table); any other is not. */
export function trackIdle(
  recorder: PlanRecorder,
  input: PlanInput,
  live: Entry[],
  hasNothingToDo: (entry: Entry) => boolean,
): void {
  const { now } = input;
  for (const entry of live) {
    const idle = entry.pod?.status === PodStatus.Running && hasNothingToDo(entry);
    const idleSince = idle ? (entry.worker.idleSince ?? now) : null;
    if ((entry.idleSince?.getTime() ?? null) !== (idleSince?.getTime() ?? null)) {
      entry.idleSince = idleSince;
      recorder.refresh(entry.worker.podId, { idleSince });
    }
  }
}

/**
 * Scales the `serving` workers (live, not draining) up or down to `decision.desired`, stopping only among
 * `running` (theirs); the workers in `keep` are never stopped.
 */
export function resize(
  recorder: PlanRecorder,
  input: PlanInput,
  entries: Entry[],
  sizing: { serving: number; running: Entry[]; keep: Entry[] },
  decision: ScalingDecision,
  tally: Tally,
): void {
  const { serving, running, keep } = sizing;
  if (decision.desired > serving) {
    scaleUp(recorder, input, entries, decision.desired - serving, decision.reason, tally);
  } else if (decision.desired < serving) {
    const kept = new Set(keep);
    scaleDown(
      recorder,
      input,
      running.filter((e) => !kept.has(e)),
      serving - decision.desired,
      decision.reason,
      tally,
    );
  }
}

/**
 * FLASHBOOT resumes stopped workers first (most recently stopped first), then creates the rest. A resume that is
 * refused is replaced on the next tick, when that worker no longer counts.
 */
function scaleUp(
  recorder: PlanRecorder,
  input: PlanInput,
  entries: Entry[],
  missing: number,
  reason: string,
  tally: Tally,
): void {
  const { endpoint, refusals, settings, now } = input;
  const spendHeld = heldFor(refusals.spendLimitRefusedAt, settings.spendLimitPauseMs, now);
  if (spendHeld !== null) {
    recorder.plan.held.push(`spend limit reached: no worker created or resumed for ${spendHeld} s more`);
    return;
  }
  if (endpoint.flashBoot) {
    const stopped = entries
      .filter((e) => e.worker.desired === 'EXITED' && e.pod?.status === PodStatus.Exited && !e.draining)
      .sort((a, b) => b.worker.desiredSince.getTime() - a.worker.desiredSince.getTime())
      .slice(0, missing);
    for (const entry of stopped) recorder.change(entry, 'RUNNING', reason, tally);
    missing -= stopped.length;
  }
  if (missing <= 0) return;
  const backoff = heldFor(refusals.createRefusedAt, settings.failureBackoffMs, now);
  if (backoff !== null) {
    recorder.plan.held.push(`a create was refused: no new worker for ${backoff} s more`);
    return;
  }
  for (let i = 0; i < missing; i++) recorder.plan.create.push({ reason, tally });
}

/**
 * RUNNING workers idle for at least idleTimeout go, oldest idle first (stopped with FLASHBOOT, else
 * terminated). The caller leaves out the workers that must not go (a job or a request in flight).
 */
function scaleDown(
  recorder: PlanRecorder,
  input: PlanInput,
  running: Entry[],
  surplus: number,
  reason: string,
  tally: Tally,
): void {
  const { endpoint, now } = input;
  const idleFor = endpoint.idleTimeout * 1000;
  const idleMs = (e: Entry) => (e.idleSince ? now.getTime() - e.idleSince.getTime() : -1);
  const candidates = running
    .filter((e) => !recorder.hasChanged(e.worker.podId) && e.idleSince && idleMs(e) >= idleFor)
    .sort((a, b) => idleMs(b) - idleMs(a))
    .slice(0, surplus);
  for (const entry of candidates) {
    const idleS = Math.round(idleMs(entry) / 100) / 10;
    const why = `idle ${idleS} s >= idleTimeout ${endpoint.idleTimeout} s; ${reason}`;
    recorder.change(entry, endpoint.flashBoot ? 'EXITED' : 'TERMINATED', why, tally, true);
  }
}

/** Seconds (one decimal) a refusal at `at` still holds the endpoint back; null when it does not any more. */
function heldFor(at: Date | null, forMs: number, now: Date): number | null {
  if (!at) return null;
  const left = at.getTime() + forMs - now.getTime();
  return left > 0 ? Math.ceil(left / 100) / 10 : null;
}
