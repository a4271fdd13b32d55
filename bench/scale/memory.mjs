// Memory and start-up at each size, measured last, once every other measure of the size has run over the size's
// fleet and history:
//   peak RSS    each app's VmHWM since it started (the whole size's seeding and measures); baseline: the bare Nest
//               app on the same Fastify adapter, started and asked 200 requests (bench/lib/bare-nest.server.mjs);
//   start-up    each app stopped and started again over the size's fleet and history: spawn → first 200 from
//               /readyz (cluster-scheduler loads the fleet, pod-lifecycle reconciles its live pods, the gateway
//               warms its caches); baseline: the bare Nest app started the same way, in the same rounds.
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/infra.mjs';
import { freePorts, peakRssMb, startNode, untilReady } from '../lib/processes.mjs';
import { APP_NAMES } from '../lib/system.mjs';

async function bareNest() {
  const [port] = await freePorts(1);
  const proc = startNode('bare-nest-scale', join(ROOT, 'bench/lib/bare-nest.server.mjs'), {
    env: { HTTP_PORT: String(port) },
  });
  try {
    const readyAt = await untilReady(proc, `http://127.0.0.1:${port}`);
    for (let i = 0; i < 200; i++) await (await fetch(`http://127.0.0.1:${port}/readyz`)).arrayBuffer();
    return { startMs: readyAt - proc.startedAt, rssMb: peakRssMb(proc.pid) };
  } finally {
    await proc.stop();
  }
}

export default {
  id: 'memory',
  title: 'memory and start-up',
  async run(env) {
    // Read before any restart: the peak over everything this size has done.
    const peaks = Object.fromEntries(APP_NAMES.map((app) => [app, peakRssMb(env.system.pid(app))]));
    const bare = await bareNest();
    const starts = Object.fromEntries(APP_NAMES.map((app) => [app, []]));
    const bareStarts = [];
    // Restarts are slow (five apps a round): under --quick, one and at the largest size only; at most three otherwise.
    const rounds = env.quick ? (env.size.name === 'L' ? 1 : 0) : Math.min(env.rounds, 3);
    for (let round = 0; round < rounds; round++) {
      bareStarts.push(round === 0 ? bare.startMs : (await bareNest()).startMs);
      for (const app of APP_NAMES) starts[app].push((await env.system.restart(app)).startMs);
    }
    return [
      ...APP_NAMES.map((app) => ({
        id: `memory.rss-${app}`,
        label: `${app} peak RSS over the size's run`,
        unit: 'MiB',
        better: 'lower',
        ours: [peaks[app]],
        baseline: [bare.rssMb],
        oursLabel: `${app}: VmHWM since its start, after every seed and measure of the size`,
        baselineLabel: 'the bare Nest app on the same adapter after 200 requests',
      })),
      ...(rounds ? APP_NAMES : []).map((app) => ({
        id: `memory.start-${app}`,
        label: `${app} start → ready`,
        unit: 'ms',
        better: 'lower',
        ours: starts[app],
        baseline: bareStarts,
        oursLabel: `${app} stopped and started over the size's fleet and history, until /readyz answers 200`,
        baselineLabel: 'the bare Nest app started the same way, in the same rounds',
        notes: [`${rounds} restart(s) of each app`],
      })),
    ];
  },
};
