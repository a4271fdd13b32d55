/**
 * What clients saw of a fault, across every client of a scenario:
 * - `longestOutageMs`, the "client-visible outage (5xx or refused)": the longest stretch in which clients
 *   got only refusals, from the first refusal after an accepted answer to the next accepted one. One replica's
 *   death is invisible by this measure when the other replicas keep answering;
 * - `longestWaitMs`: the longest a single request waited for its answer, whatever it was. A command pulled by an
 *   owner replica that then dies waits for JetStream's redelivery (COMMAND_ACK_WAIT_MS) before another replica
 *   applies it: not a refusal, but a stall the user sees.
 */
export class ClientOutage {
  private refusedSince: number | null = null;
  longestOutageMs = 0;
  longestWaitMs = 0;

  answer(accepted: boolean, startedAt: number, now = Date.now()): void {
    this.longestWaitMs = Math.max(this.longestWaitMs, now - startedAt);
    if (!accepted) {
      this.refusedSince ??= now;
      return;
    }
    if (this.refusedSince !== null) {
      this.longestOutageMs = Math.max(this.longestOutageMs, now - this.refusedSince);
    }
    this.refusedSince = null;
  }
}
