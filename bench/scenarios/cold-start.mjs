// Cold start: process start → ready (the first 200 from GET /readyz, polled every 20 ms), app by app.
//   ours      each app of the running system stopped (SIGTERM, waited for) and started again: Node boot, config
//             validation, Postgres pool, NATS connection, stream/consumer checks, its own start-up work
//             (cluster-scheduler loads the 10,000-host fleet; pod-lifecycle reconciles its live pods), listening;
//   baseline  the bare Nest 12 app on the Fastify adapter with none of those modules
//             (bench/lib/bare-nest.server.mjs), started the same way. A `node -e` HTTP server start is measured
//             too, as the floor of any Node process (raw JSON only).
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/infra.mjs';
import { releaseJobsEndpoint } from '../lib/fixtures.mjs';
import { quickRounds } from '../lib/rounds.mjs';
import { median } from '../lib/stats.mjs';
import { APP_NAMES } from '../lib/system.mjs';
import { freePorts, startNode, untilReady } from '../lib/processes.mjs';

const NODE_FLOOR = `require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.HTTP_PORT), '127.0.0.1')`;

async function timedStart(name, script, args = []) {
  const [port] = await freePorts(1);
  const proc = startNode(name, script, { args, env: { HTTP_PORT: String(port), METRICS_PORT: '0' } });
  try {
    const readyAt = await untilReady(proc, `http://127.0.0.1:${port}`);
    return { ms: readyAt - proc.startedAt };
  } finally {
    await proc.stop();
  }
}

const appSides = Object.fromEntries(
  APP_NAMES.map((app) => [
    app,
    {
      label: `${app}: stopped, then node dist/apps/${app}/main.js until /readyz answers 200`,
      async run(state) {
        const { startMs, stopMs } = await state.system.restart(app);
        return { ms: startMs, stopMs };
      },
    },
  ]),
);

export default {
  id: 'cold-start',
  title: 'cold start',
  warmup: false,
  rounds: (ctx) => quickRounds(ctx, 3),
  async setup(ctx) {
    await releaseJobsEndpoint();
    return { settings: { readyPollMs: 20 }, system: ctx.system };
  },
  sides: {
    'bare nest': {
      label: 'bare Nest 12 app on the Fastify adapter, no modules (bench/lib/bare-nest.server.mjs)',
      run: () => timedStart('bare-nest-cold', join(ROOT, 'bench/lib/bare-nest.server.mjs')),
    },
    'node -e': {
      label: 'node -e: a plain node:http server (the floor of any Node process)',
      run: () => timedStart('node-floor', '-e', [NODE_FLOOR]),
    },
    ...appSides,
  },
  comparisons: APP_NAMES.map((app) => ({
    label: `${app} start → ready (vs bare Nest app)`,
    unit: 'ms',
    better: 'lower',
    ours: [app, 'ms'],
    baseline: ['bare nest', 'ms'],
  })),
  notes: (state, raw) => [
    `node -e floor (plain node:http server): median ${median(raw['node -e'].ms ?? []).toFixed(0)} ms`,
    'each app is restarted inside the running system (the others keep running); the ready poll adds up to 20 ms to every figure alike',
  ],
};
