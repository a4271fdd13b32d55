// CPU time of the bench's processes: an app's from its own /metrics, any process's from /proc.
import { readFileSync, readdirSync } from 'node:fs';

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

/** The pids of the machine's processes named `name` (/proc/<pid>/comm): every Postgres backend, the nats-server. */
export function pidsNamed(name) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/**
 * CPU ms that each role's processes use while `work` runs: `roles` maps a role to a function answering its pids
 * (called at the start and at the end: Postgres starts and ends backends); a process that appears or ends meanwhile
 * counts from its first reading to its last. Answers `{ result, cpuMs: { role: ms } }`.
 */
export async function cpuMsDuring(roles, work) {
  const before = Object.fromEntries(
    Object.entries(roles).map(([role, pids]) => [
      role,
      new Map(pids().map((pid) => [pid, processCpuMs(pid)])),
    ]),
  );
  const result = await work();
  const cpuMs = {};
  for (const [role, pids] of Object.entries(roles)) {
    cpuMs[role] = 0;
    for (const pid of new Set([...before[role].keys(), ...pids()])) {
      const end = processCpuMs(pid);
      if (Number.isFinite(end)) cpuMs[role] += end - (before[role].get(pid) ?? 0);
    }
  }
  return { result, cpuMs };
}

/**
 * `work`'s result (an object) with `cpuMs`: the CPU of all of `roles` (cpuMsDuring) per unit of `count`, and each
 * role's share as `cpu:<role>`.
 */
export async function withCpuPer(count, roles, work) {
  const { result, cpuMs } = await cpuMsDuring(roles, work);
  const perUnit = Object.entries(cpuMs).map(([role, ms]) => [`cpu:${role}`, ms / count]);
  return {
    ...result,
    cpuMs: perUnit.reduce((sum, [, ms]) => sum + ms, 0),
    ...Object.fromEntries(perUnit),
  };
}
