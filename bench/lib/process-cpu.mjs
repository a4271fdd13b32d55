// CPU time of an app of the bench, read from its own /metrics.

/**
 * CPU seconds (user + system) the process has used, from its own /metrics (`metricsUrl`). Divided by the requests
 * it answered meanwhile, a cost per request that CPU contention on a shared machine does not inflate (req/s does).
 */
export async function cpuSeconds(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split('\n').find((l) => l.startsWith('process_cpu_seconds_total '));
  return line ? Number(line.split(' ')[1]) : NaN;
}
