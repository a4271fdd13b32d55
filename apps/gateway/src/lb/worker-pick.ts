/** A ready worker of a load-balancing endpoint, as the gateway routes to it. */
export interface LbCandidate {
  podId: string;
  url: string;
}

/**
 * The worker for the next request: least outstanding requests (this replica's count), never one already tried
 * for this request. Ties go round-robin by `turn` (a counter the caller advances), over the workers ordered by
 * id, so equally loaded workers share the requests evenly. Pure: the same inputs give the same worker.
 */
export function pickWorker(
  candidates: readonly LbCandidate[],
  outstanding: ReadonlyMap<string, number>,
  tried: ReadonlySet<string>,
  turn: number,
): LbCandidate | null {
  let least = Number.POSITIVE_INFINITY;
  let ties: LbCandidate[] = [];
  for (const candidate of [...candidates].sort((a, b) => (a.podId < b.podId ? -1 : 1))) {
    if (tried.has(candidate.podId)) continue;
    const load = outstanding.get(candidate.podId) ?? 0;
    if (load < least) {
      least = load;
      ties = [candidate];
    } else if (load === least) ties.push(candidate);
  }
  if (ties.length === 0) return null;
  return ties[Math.abs(turn) % ties.length];
}

/** Methods whose request may be sent twice (RFC 9110 §9.2.2): only these are retried on another worker. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'PUT',
  'DELETE',
]);
