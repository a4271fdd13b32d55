// BENCH_TIMELINE=1: where a sequential job's time goes, read from the bus (the jobs-sync scenario prints it per
// round). A core subscription to `>` sees every message the apps publish on the run's prefix, and a command twice:
// published by the gateway to the stream, then delivered by JetStream to the broker (to its consumer's inbox, which
// `>` matches, under the command's own subject). Outcomes and hints show once; JetStream acknowledgements and query
// replies are not on the prefix and are left out. The times are the harness's receipt times, so each includes the
// subscriber's share of the machine: read them as a profile of one run, not as figures to compare across runs.
import { median } from './stats.mjs';

/** A message's kind by its subject below the prefix: `submit`, `done`, `outcome`, `hint:changed`, ... */
function kindOf(rest) {
  const parts = rest.split('.');
  if (parts[0] === 'hint') return `hint:${parts.at(-1)}`;
  if (parts[0] === 'outcome') return 'outcome';
  // Ours `<domain>.cmd.<name>`, the shape's floor `cmd.<name>`.
  const cmd = parts.indexOf('cmd');
  return cmd >= 0 && cmd <= 1 ? (parts[cmd + 1] ?? null) : null;
}

/**
 * Null unless BENCH_TIMELINE is set; else `{ start(), sample(started, ended), stop() }`: `sample` gives one
 * request's start and end (performance.now()), and `stop` resolves the lines to print: for each message of the
 * requests' usual sequence, the median time since its request started.
 */
export function natsTimeline(ctx, root = ctx.natsPrefix) {
  if (!process.env.BENCH_TIMELINE) return null;
  const prefix = `${root}.`;
  const seen = [];
  const samples = [];
  let sub = null;
  return {
    async start() {
      seen.length = 0;
      samples.length = 0;
      sub = ctx.nc.subscribe('>', {
        callback: (error, msg) => {
          const ours = !error && msg.subject.startsWith(prefix);
          const kind = ours ? kindOf(msg.subject.slice(prefix.length)) : null;
          if (kind) seen.push([performance.now(), kind]);
        },
      });
      await ctx.nc.flush();
    },
    sample(started, ended) {
      samples.push([started, ended]);
    },
    async stop() {
      await ctx.nc.flush();
      sub?.unsubscribe();
      // Each request's messages, a command's second sighting named as its delivery.
      const sequences = samples.map(([started, ended]) => {
        const steps = [];
        const commands = new Set();
        for (const [at, kind] of seen) {
          if (at < started || at > ended) continue;
          const isCommand = !kind.includes(':') && kind !== 'outcome';
          const name = isCommand && commands.has(kind) ? `${kind} delivered` : kind;
          if (isCommand) commands.add(kind);
          steps.push([name, at - started]);
        }
        steps.push(['answered', ended - started]);
        return steps;
      });
      // The usual sequence: the most frequent list of step names.
      const shapes = new Map();
      for (const steps of sequences) {
        const shape = steps.map(([name]) => name).join(' → ');
        shapes.set(shape, [...(shapes.get(shape) ?? []), steps]);
      }
      const [shape, usual] = [...shapes].sort((a, b) => b[1].length - a[1].length)[0] ?? ['', []];
      const names = shape.split(' → ');
      return [
        `timeline of ${usual.length} of ${sequences.length} requests (the usual sequence), median ms since the request started:`,
        ...names.map((name, i) => {
          const at = median(usual.map((steps) => steps[i][1]));
          return `  ${at.toFixed(2).padStart(7)}  ${name}`;
        }),
      ];
    },
  };
}
