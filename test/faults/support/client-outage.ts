/**
 * What clients saw of a fault: the longest time in which no client got an accepted answer while the load ran
 * (from one accepted answer to the next, across every client of a scenario). Refusals and requests left hanging
 * both count, since neither is an accepted answer; one replica's death is invisible by this measure when the
 * others keep answering. Under this load an accepted answer arrives every few milliseconds, so a stretch is what
 * a user would call an outage (issue 16: at most 2 s when one replica of any app dies).
 */
export class ClientOutage {
  private lastAcceptedAt: number | null = null;
  longestMs = 0;

  answer(accepted: boolean, now = Date.now()): void {
    if (!accepted) return;
    if (this.lastAcceptedAt !== null) this.longestMs = Math.max(this.longestMs, now - this.lastAcceptedAt);
    this.lastAcceptedAt = now;
  }
}
