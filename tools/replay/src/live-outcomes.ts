import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import { recordedDecisionOf, type CommandOutcome } from '@app/contracts';
import { describeFailure } from './outcomes.js';
import { REBUILT_SCHEMAS } from './rebuild-scope.js';
import type { DecidedOf } from './replayer.js';
import type { RecordedCommand } from './selection.js';

export interface LiveOutcome {
  /** Seconds since the epoch, with microseconds. */
  at: number;
  outcome: CommandOutcome;
}

export interface OutcomeMismatch {
  seq: number;
  commandId: string;
  subject: string;
  live: string;
  rebuilt: string;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Every outcome the live owners recorded, with when each command was applied, as `client` sees them. */
export async function liveOutcomes(client: pg.Client): Promise<Map<string, LiveOutcome>> {
  const union = REBUILT_SCHEMAS.map(
    (s) =>
      `SELECT command_id, extract(epoch FROM processed_at)::text AS at, outcome FROM ${ident(s)}.processed_commands`,
  ).join(' UNION ALL ');
  const result = await client.query<{ command_id: string; at: string; outcome: CommandOutcome }>(union);
  return new Map(result.rows.map((r) => [r.command_id, { at: Number(r.at), outcome: r.outcome }]));
}

/**
 * The order the live deployment applied the commands in. The stream holds them in the order they were recorded,
 * but each domain has a consumer of its own, so a command may be applied before one recorded just ahead of it
 * (a worker's take overtaking a job's submit, say). A command the live side never applied keeps its place after
 * the command recorded before it.
 */
export function applyOrder(
  commands: RecordedCommand[],
  live: Map<string, { at: number }>,
): RecordedCommand[] {
  let carried = -Infinity;
  const keyed = commands.map((command, index) => {
    const at = live.get(command.envelope.commandId)?.at;
    if (at !== undefined) carried = Math.max(carried, at);
    return { command, index, key: at ?? carried };
  });
  keyed.sort((a, b) => a.key - b.key || a.index - b.index);
  return keyed.map((k) => k.command);
}

/**
 * What the live side decided for each command whose effect a race chose (the jobs a take leased), read from its
 * recorded outcome (recordedDecisionOf): a rebuild sends it along so the owner leases the same jobs, whatever
 * order the live lanes ran the takes in (docs/adr/0028-recorded-take-decisions.md).
 */
export function liveDecisions(live: Map<string, LiveOutcome>): DecidedOf {
  return (command) => recordedDecisionOf(command.subject, live.get(command.envelope.commandId)?.outcome);
}

/** The commands whose rebuilt outcome is not the live one (both known). */
export function mismatches(
  commands: RecordedCommand[],
  live: Map<string, LiveOutcome>,
  rebuilt: Map<string, CommandOutcome>,
): OutcomeMismatch[] {
  const out: OutcomeMismatch[] = [];
  for (const command of commands) {
    const a = live.get(command.envelope.commandId)?.outcome;
    const b = rebuilt.get(command.envelope.commandId);
    if (!a || !b || isDeepStrictEqual(a, b)) continue; // key order differs: jsonb sorts keys
    out.push({
      seq: command.seq,
      commandId: command.envelope.commandId,
      subject: command.subject,
      live: a.ok ? JSON.stringify(a.value) : describeFailure(a),
      rebuilt: b.ok ? JSON.stringify(b.value) : describeFailure(b),
    });
  }
  return out;
}
