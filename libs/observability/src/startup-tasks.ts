/**
 * Start-up work that runs in the background while the app already listens (the scheduler's fleet load, the
 * bus consumers' stream and consumer setup): `/healthz` answers at once, `/readyz` answers 503 until every task
 * has finished, so an app that reports ready can serve. A task that fails is reported to the failure handler
 * (bootstrapApp ends the process: an app that cannot finish starting must not stay up unready).
 */
export class StartupTasks {
  private readonly unfinishedTasks = new Map<string, Promise<void>>();
  private readonly failedTasks = new Map<string, Error>();
  private failureHandler: ((name: string, error: Error) => void) | null = null;

  /**
   * Starts `work` in the background, once `after` (if given) has resolved. Returns the task's promise, which
   * never rejects: a failure goes to the failure handler and shows in `failed()`.
   */
  run(name: string, work: () => Promise<unknown>, after?: Promise<unknown>): Promise<void> {
    if (this.unfinishedTasks.has(name)) throw new Error(`start-up task ${name} is already running`);
    const task = (async () => {
      await after;
      await work();
    })().then(
      () => {
        this.unfinishedTasks.delete(name);
      },
      (error: unknown) => {
        this.unfinishedTasks.delete(name);
        const failure = error instanceof Error ? error : new Error(String(error));
        this.failedTasks.set(name, failure);
        this.failureHandler?.(name, failure);
      },
    );
    this.unfinishedTasks.set(name, task);
    return task;
  }

  /** Resolves when every task started so far has ended (finished or failed). */
  async settled(): Promise<void> {
    await Promise.all(this.unfinishedTasks.values());
    const failed = [...this.failedTasks.keys()];
    if (failed.length) throw new Error(`start-up task(s) failed: ${failed.join(', ')}`);
  }

  /** Names of the tasks still running. */
  unfinished(): string[] {
    return [...this.unfinishedTasks.keys()];
  }

  /** Names of the tasks that failed, with why. */
  failed(): [string, string][] {
    return [...this.failedTasks].map(([name, error]) => [name, error.message]);
  }

  /** Who hears of a failed task; failures that happened before it was set are passed on at once. */
  onFailure(handler: (name: string, error: Error) => void): void {
    this.failureHandler = handler;
    for (const [name, error] of this.failedTasks) handler(name, error);
  }
}

/** The tasks of this process. */
export const startupTasks = new StartupTasks();
