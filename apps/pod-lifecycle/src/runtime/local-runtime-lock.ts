import { AdvisoryLeadership } from '@app/database';
import type { PodLifecycleConfig } from '../pod-lifecycle.config.js';

/** How long a starting replica waits for the lock (a restarted process's old session may take a moment to go). */
const WAIT_MS = 5000;

/**
 * The local runtime's pods are child processes of one pod-lifecycle process: no other replica can adopt them, so
 * only one replica per database may run it (docs/adr/0018-partitioned-runtime.md). It holds a Postgres advisory
 * lock for its whole life; a second replica fails to start, saying why, rather than half-driving pods.
 */
export async function holdLocalRuntime(config: PodLifecycleConfig): Promise<AdvisoryLeadership> {
  const lock = new AdvisoryLeadership({
    databaseUrl: config.DATABASE_URL,
    name: 'pod-lifecycle/local-runtime',
    checkMs: Math.min(config.LEADER_CHECK_MS, 500),
  });
  lock.start();
  const until = Date.now() + WAIT_MS;
  while (!(await lock.settled())) {
    if (Date.now() >= until) {
      await lock.stop();
      throw new Error(
        'RUNTIME_DRIVER=local runs pods as child processes of one pod-lifecycle process, and another ' +
          'pod-lifecycle on this database runs them already: run one replica with the local runtime, or use ' +
          'RUNTIME_DRIVER=kubernetes (or simulated) to run several',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return lock;
}
