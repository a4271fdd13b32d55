// CPU time of the bench's processes: an app's from its own /metrics, any process's from /proc.
import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) the process has used, from its own /metrics (`metricsUrl`). Divided by the requests
 * it answered meanwhile, a cost per request that CPU contention on a shared machine does not inflate (req/s does).
 */
export async function cpuSeconds(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split('\n').find((l) => l.startsWith('process_cpu_seconds_total '));
  return line ? Number(line.split(' ')[1]) : NaN;
}

/**
 * CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat (clock ticks of 10 ms); NaN
 * when unreadable. A difference of two readings is what the process spent between them.
 */
export function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
