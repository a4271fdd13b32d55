// Replay at the speed of a restore (issue 14, docs/adr/0025-replay-speed.md): a recorded history of N job
// commands (submits, takes and dones interleaved, recorded fast by bench/lib/command-history.mjs against the
// running system), then the operators' tool run on it as a process, as an operator runs it:
//   rebuild   `replay rebuild --json`: four owner apps started on a fresh database, every command of the stream
//             replayed (first pass), replayed again (second pass: nothing applied), compared table by table. The
//             figures are the report's own: commands/s of each pass, the apps' start-up, the whole run;
//   replay    `replay replay --all`: every command offered to the live owners again, all found applied (the
//             check a restore makes before applying what the backup lacks);
//   target    the floor the issue sets, 2,000 commands/s on the 2-core machine (a constant, not a measurement).
// The rebuild replays the whole stream, so run alone (`--only replay`) N is what it replays; after other
// scenarios it replays their commands too (the report's count is in the notes).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../scripts/lib/infra.mjs';
import { recordJobHistory } from '../lib/command-history.mjs';
import { baseEnv } from '../lib/processes.mjs';

const run = promisify(execFile);
const TARGET = 2000;
const CLI = join(ROOT, 'dist/tools/replay/replay.mjs');

async function tool(state, args) {
  const { stdout } = await run(process.execPath, [CLI, ...args], {
    env: state.env,
    maxBuffer: 256 * 1024 * 1024,
    timeout: 15 * 60_000,
  });
  return stdout;
}

export default {
  id: 'replay',
  title: 'replay and rebuild of recorded commands',
  warmup: false,
  rounds: (ctx) => (ctx.quick ? 3 : Math.min(ctx.rounds, 5)),
  async setup(ctx) {
    const commands = ctx.quick ? 3_000 : 20_000;
    const recorded = await recordJobHistory({
      nc: ctx.nc,
      prefix: ctx.natsPrefix,
      endpointPrefix: `bench-replay-${ctx.runId}`,
      commands,
    });
    const env = {
      ...baseEnv(),
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: ctx.databaseUrl,
      NATS_URL: ctx.natsUrl,
      NATS_PREFIX: ctx.natsPrefix,
      FLEET_FILE: ctx.fleet.file,
      // Nothing sealed is opened in a rebuild, but the queue-broker will not start without a key ring.
      REGISTRY_AUTH_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      WORKER_KEY_RING: `w1:${randomBytes(32).toString('base64')}`,
    };
    return {
      settings: { commandsRecorded: recorded.commands, jobs: recorded.jobs },
      recorded,
      env,
      replayed: 0,
    };
  },
  sides: {
    rebuild: {
      label: 'replay rebuild --json: first pass commands/s (fresh database, owner apps in REPLAY_MODE)',
      async run(state) {
        const started = performance.now();
        const report = JSON.parse(await tool(state, ['rebuild', '--json']));
        const differs =
          report.comparison.differences.length ||
          report.outcomeMismatches.length ||
          report.secondPass.applied;
        if (differs) throw new Error(`the rebuild differs: ${JSON.stringify(report).slice(0, 2000)}`);
        state.replayed = report.commands;
        return {
          rate: report.firstPass.rate,
          secondPassRate: report.secondPass.rate,
          startupSeconds: report.startupSeconds,
          seconds: (performance.now() - started) / 1000,
        };
      },
    },
    replay: {
      label: 'replay replay --all --json: every command offered to the live owners again (all found applied)',
      async run(state) {
        const summary = JSON.parse(await tool(state, ['replay', '--all', '--json']));
        if (summary.applied || summary.failed) throw new Error(`replay --all: ${JSON.stringify(summary)}`);
        return { rate: summary.rate };
      },
    },
    target: {
      label: `the floor issue 14 sets: ${TARGET} commands/s (a constant)`,
      run: () => ({ rate: TARGET }),
    },
  },
  comparisons: [
    {
      label: 'rebuild: commands applied per second (first pass)',
      unit: 'commands/s',
      better: 'higher',
      ours: ['rebuild', 'rate'],
      baseline: ['target', 'rate'],
    },
    {
      label: 'replay --all of a live deployment: commands checked per second',
      unit: 'commands/s',
      better: 'higher',
      ours: ['replay', 'rate'],
      baseline: ['target', 'rate'],
    },
  ],
  notes: (state) => [
    `history: ${state.recorded.commands} job commands (${state.recorded.jobs} jobs over 8 endpoints: submit, take in batches of up to 8, done) recorded and applied live at ${Math.round(state.recorded.rate)} commands/s; each rebuild replayed the whole stream, ${state.replayed} commands`,
    'a rebuild also starts four apps on a fresh database (startupSeconds) and compares every table (seconds: the whole run)',
  ],
};
