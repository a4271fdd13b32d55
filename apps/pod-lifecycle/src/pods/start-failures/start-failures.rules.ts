import type { StartFailure } from './host-start-failures.entity.js';

/**
 * Failures that are not the host's: an image that cannot be pulled (or named), a registry credential or secret
 * variable that cannot be opened, a container configuration Kubernetes refuses (a missing Secret), a container the
 * user's command made exit (it has an exit code). Anything else while PROVISIONING or STARTING (the simulated
 * runtime's start failure, a runtime that cannot create or run the container, a Kubernetes pod gone) counts.
 */
const NOT_THE_HOST =
  /^cannot pull |cannot be opened|ImagePullBackOff|ErrImagePull|ErrImageNeverPull|InvalidImageName|CreateContainerConfigError|CrashLoopBackOff/;

export function blamesHost(reason: string | null | undefined, exitCode: number | undefined): boolean {
  return exitCode === undefined && !NOT_THE_HOST.test(reason ?? '');
}

/** The streak after a failed start; `report` once it reaches `threshold` distinct pods (the streak then starts over). */
export function afterFailure(
  streak: readonly StartFailure[],
  failure: StartFailure,
  threshold: number,
): { streak: StartFailure[]; report: StartFailure[] | null } {
  // A pod failing again (another run of it) is still one pod: its latest reason stands.
  const next = [...streak.filter((f) => f.podId !== failure.podId), failure];
  return next.length >= threshold ? { streak: [], report: next } : { streak: next, report: null };
}

/** `3 pods failed to start in a row: p1 (reason), p2 (reason), p3 (reason)`, at most 1000 characters. */
export function startFailuresReason(failures: readonly StartFailure[]): string {
  const list = failures.map((f) => `${f.podId} (${f.reason.slice(0, 200)})`).join(', ');
  const text = `${failures.length} pods failed to start in a row: ${list}`;
  return text.length > 1000 ? `${text.slice(0, 997)}...` : text;
}
