import { HOST_REASONS, PREEMPTED_REASON, PodStatus } from '@app/contracts';
import type { Entry, PlanRecorder } from './plan-recorder.js';
import type { PlanPod, Tally } from './scaling-plan.types.js';

/**
 * Workers whose host drains (docs/adr/0039-live-fleet.md): replaced on other hosts first, then terminated. A draining
 * worker still serves, so the endpoint's size is decided counting it as usual; but it does not count toward the
 * workers that size asks for: the scaler brings the workers that are not draining up to it, and so up to
 * workersMax, the draining ones coming on top while their replacements start (an endpoint at workersMax could not
 * be drained otherwise, and its capacity would drop for the whole cold start). Each draining worker goes once the
 * ready workers elsewhere, with the draining ones still up, cover the size wanted; all go at once when the endpoint
 * wants none. Never stopped to be kept (FLASHBOOT): a resume would be pinned to the draining host.
 */

/** The live workers (wanted RUNNING) that serve, and those on a draining host. */
export function splitDraining(live: Entry[]): { serving: Entry[]; draining: Entry[] } {
  return { serving: live.filter((e) => !e.draining), draining: live.filter((e) => e.draining) };
}

/**
 * Terminates the draining workers the `ready` workers elsewhere replace: as many as `ready` plus the draining ones
 * exceed `desired`, those not yet running first (they never served), then the longest idle, then by id. The
 * workers in `keep` (a request in flight) stay for this tick.
 */
export function retireDraining(
  recorder: PlanRecorder,
  draining: Entry[],
  ready: number,
  desired: number,
  tally: Tally,
  keep: ReadonlySet<Entry> = new Set(),
): void {
  const surplus = Math.min(draining.length, ready + draining.length - desired);
  if (surplus <= 0) return;
  const order = (e: Entry) => [
    e.pod?.status === PodStatus.Running ? 1 : 0,
    e.idleSince ? e.idleSince.getTime() : Number.MAX_SAFE_INTEGER,
  ];
  const candidates = draining
    .filter((e) => !keep.has(e) && !recorder.hasChanged(e.worker.podId))
    .sort((a, b) => {
      const [x, y] = [order(a), order(b)];
      return x[0] - y[0] || x[1] - y[1] || (a.worker.podId < b.worker.podId ? -1 : 1);
    })
    .slice(0, surplus);
  const why =
    desired === 0
      ? 'its host drains and the endpoint wants no worker'
      : `its host drains; replaced: ${ready} ready worker(s) on other hosts for ${desired} wanted`;
  for (const entry of candidates) recorder.change(entry, 'TERMINATED', why, tally, true);
}

/**
 * A worker pod stopped for good by the platform for its host or its GPUs: preempted, or stopped at its host's
 * drain deadline (EXITED); its host unhealthy or gone (ERROR). A resume would be pinned to that host: it is
 * terminated and replaced wherever the scheduler admits a new one.
 */
export function stoppedForHost(pod: PlanPod | null): pod is PlanPod {
  if (!pod) return false;
  const reason = pod.statusReason ?? '';
  if (pod.status === PodStatus.Exited) {
    return reason.startsWith(PREEMPTED_REASON) || reason.startsWith(HOST_REASONS.drained);
  }
  return pod.status === PodStatus.Error && isHostLoss(reason);
}

/** A status reason saying the pod's host is unhealthy, gone or drained: capacity lost by no one's scaling choice. */
export function isHostLoss(reason: string | null): boolean {
  const { unhealthy, gone, drained } = HOST_REASONS;
  return [unhealthy, gone, drained].some((code) => (reason ?? '').startsWith(`${code}:`));
}
