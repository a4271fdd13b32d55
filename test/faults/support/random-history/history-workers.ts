import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../../support/paths.js';
import { runpodWorkerEnv } from '../fault-workers.js';
import type { HistorySystem } from './history-system.js';

const SCRIPT = join(ROOT, 'test/faults/support/random-history/history-worker.mjs');

/**
 * The worker processes of a history (history-worker.mjs, @app/worker-sdk), by endpoint: started, killed with
 * SIGKILL mid-job (their leases are then lost: WORKER_LOST after WORKER_LOST_AFTER_MS), and stopped at the end.
 * Worker ids are `<endpoint>-w<n>`, n counting every worker the endpoint ever had.
 */
export class HistoryWorkers {
  private readonly running = new Map<string, { id: string; child: ChildProcess; exited: Promise<void> }[]>();
  private readonly started = new Map<string, number>();
  kills = 0;

  constructor(private readonly hs: HistorySystem) {}

  count(endpointId: string): number {
    return this.running.get(endpointId)?.length ?? 0;
  }

  async start(endpointId: string, concurrency: number): Promise<void> {
    const n = (this.started.get(endpointId) ?? 0) + 1;
    this.started.set(endpointId, n);
    const workerId = `${endpointId}-w${n}`;
    const key = await this.hs.workerKey(endpointId);
    const child = spawn(process.execPath, [SCRIPT], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...runpodWorkerEnv(this.hs.gateway, endpointId, workerId, key, 'AMPERE_80'),
        WORKER_CONCURRENCY: String(concurrency),
      },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const list = this.running.get(endpointId) ?? [];
    list.push({ id: workerId, child, exited });
    this.running.set(endpointId, list);
    void exited.then(() => {
      const now = this.running.get(endpointId) ?? [];
      this.running.set(
        endpointId,
        now.filter((w) => w.child !== child),
      );
    });
  }

  /** SIGKILLs the endpoint's worker at `index` (mod the running ones); false when it has none. */
  async kill(endpointId: string, index: number): Promise<boolean> {
    const list = this.running.get(endpointId) ?? [];
    if (!list.length) return false;
    const worker = list[index % list.length];
    worker.child.kill('SIGKILL');
    this.kills += 1;
    await worker.exited;
    return true;
  }

  /** SIGTERM to the endpoint's workers (they hand back what they run), SIGKILL after `graceMs`. */
  async stop(endpointId?: string, graceMs = 5000): Promise<void> {
    const ids = endpointId ? [endpointId] : [...this.running.keys()];
    const all = ids.flatMap((id) => this.running.get(id) ?? []);
    for (const w of all) w.child.kill('SIGTERM');
    const timer = setTimeout(() => all.forEach((w) => w.child.kill('SIGKILL')), graceMs);
    await Promise.all(all.map((w) => w.exited));
    clearTimeout(timer);
  }
}
