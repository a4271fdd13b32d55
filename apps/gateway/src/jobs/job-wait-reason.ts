import type { EndpointView, JobView, WaitReason } from '@app/contracts';

/**
 * A job's `reason` while it is IN_QUEUE: its endpoint's wait reason, or QUEUED_BEHIND_OTHERS while workers are up
 * and nothing else is known to hold it; any other status is answered as it is.
 *
 * Why from the endpoint view the access check already holds, and no query of its own: every job route reads that
 * view first (EndpointAccess, per replica, per user and endpoint, refreshed in the background at most every
 * ENDPOINT_CACHE_MS / 2, 1 s by default, and shared by every request meanwhile), and the autoscaler's answer carries
 * the reason its control loop keeps (one primary-key read per refresh). So a status read costs nothing more on the
 * job path (docs/architecture.md, "The job path"): no bus hop, no Postgres read, and nothing at all unless IN_QUEUE.
 * The price is staleness: the reason shown is at most ENDPOINT_CACHE_MS (2 s) plus one control-loop tick old.
 */
export function withWaitReason(view: JobView, endpoint: EndpointView, readAt: Date): JobView {
  if (view.status !== 'IN_QUEUE') return view;
  const reason = jobWaitReason(endpoint, readAt);
  return reason ? { ...view, reason } : view;
}

function jobWaitReason(endpoint: EndpointView, readAt: Date): WaitReason | null {
  if (endpoint.waitReason) return endpoint.waitReason;
  const up = (endpoint.workers ?? []).filter((w) => w.desiredStatus === 'RUNNING' && w.status === 'RUNNING');
  if (!up.length) return null;
  // The loop had not judged it yet (it sees busy workers and queued jobs within a tick): the moment seen stands in.
  return {
    code: 'QUEUED_BEHIND_OTHERS',
    message: `${up.length} worker(s) up, taking the jobs ahead of it`,
    since: readAt.toISOString(),
  };
}

/** Lines of a crash-looping worker's last pod quoted in its endpoint's reason, and how long they may take to read. */
const LAST_LINES = 5;
const LAST_LINES_TIMEOUT_MS = 1000;

/**
 * `/health`'s reason with a crash-looping endpoint's last worker's last lines (`details.lastLogLines`), read from
 * the logs stream only for that reason (the autoscaler that judges it has no way to the logs; the gateway reads
 * them for every log route). Lines are redacted at the source (docs/adr/0020), and the endpoint's owner may read
 * its workers' logs anyway.
 */
export async function withLastLogLines(
  reason: WaitReason,
  tail: (podId: string, count: number, timeoutMs: number) => Promise<string[]>,
): Promise<WaitReason> {
  const podId = reason.details?.podId;
  if (reason.code !== 'WORKERS_CRASH_LOOPING' || typeof podId !== 'string') return reason;
  const lastLogLines = await tail(podId, LAST_LINES, LAST_LINES_TIMEOUT_MS);
  return lastLogLines.length ? { ...reason, details: { ...reason.details, lastLogLines } } : reason;
}
