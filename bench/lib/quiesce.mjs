// Waiting for the deployment to go quiet between measurements.
import { processCpuMs } from './process-cpu.mjs';
import { APP_NAMES } from './system.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Idle, the five apps use 50–65 ms of CPU a second in all (their timers, relays' sweeps, pull heartbeats, on the
 * machines measured); profiled (BENCH_CPU_PROF_DIR), each app's sampling profiler adds its own share.
 */
const IDLE_SHARE = process.env.BENCH_CPU_PROF_DIR ? 0.5 : 0.1;

/**
 * Waits until the five apps together use less than `maxShare` of one core over a window of `windowMs` (CPU time
 * from /proc, which costs the apps nothing to read), or `timeoutMs` passes; answers the seconds waited and whether
 * they went quiet. The default share, a tenth of a core (half a core when profiled), is about twice what the apps
 * use idle and far below one app working through a backlog of events, which keeps a core busy.
 */
export async function quiesce(system, { windowMs = 500, maxShare = IDLE_SHARE, timeoutMs = 60_000 } = {}) {
  const started = performance.now();
  const pids = APP_NAMES.map((name) => system.pid(name)).filter((pid) => pid !== undefined);
  const total = () => pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  let before = total();
  while (performance.now() - started < timeoutMs) {
    await sleep(windowMs);
    const after = total();
    if (after - before < maxShare * windowMs) {
      return { seconds: (performance.now() - started) / 1000, quiet: true };
    }
    before = after;
  }
  return { seconds: (performance.now() - started) / 1000, quiet: false };
}
