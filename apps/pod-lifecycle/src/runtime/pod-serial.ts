/**
 * One operation per pod at a time, for a runtime driver: each operation on a pod starts once the pod's previous one
 * has settled, whether it succeeded or failed; operations on different pods run side by side.
 */
export class PodSerial {
  /** The last operation of each pod that has one queued or running, settled (never rejects). */
  private readonly tails = new Map<string, Promise<void>>();

  run(podId: string, operation: () => Promise<void>): Promise<void> {
    const previous = this.tails.get(podId) ?? Promise.resolve();
    const next = previous.then(operation, operation);
    const settled = next.catch(() => undefined);
    this.tails.set(podId, settled);
    void settled.then(() => {
      if (this.tails.get(podId) === settled) this.tails.delete(podId);
    });
    return next;
  }

  /** An operation of the pod is queued or running. */
  busy(podId: string): boolean {
    return this.tails.has(podId);
  }

  /** The pods with an operation queued or running. */
  podIds(): string[] {
    return [...this.tails.keys()];
  }
}
