import type { RuntimeDriver } from './runtime-driver.js';

/**
 * The driver of a rebuild (REPLAY_MODE): runs nothing and reports nothing. What the real runtime observed was
 * recorded as `pod.cmd.observe` commands, and the rebuild replays those instead.
 */
export class ReplayDriver implements RuntimeDriver {
  readonly name = 'replay (runs nothing; observations come from the command log)';

  ensureRunning(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  remove(): Promise<void> {
    return Promise.resolve();
  }

  release(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
