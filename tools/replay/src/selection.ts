import type { CommandEnvelope } from '@app/contracts';

/** One command as the commands stream recorded it. */
export interface RecordedCommand {
  /** Stream sequence. */
  seq: number;
  /** When JetStream stored it. */
  recordedAt: Date;
  /** The unprefixed subject, e.g. `pod.cmd.create`. */
  subject: string;
  envelope: CommandEnvelope;
  /** Set on a copy that `replay` published: the sequence of the original. */
  replayOf?: number;
}

/** Which recorded commands a `list`, `show` or `replay` is about; every bound is inclusive. */
export interface Selection {
  fromSeq?: number;
  toSeq?: number;
  since?: Date;
  until?: Date;
  /** NATS subject pattern without the deployment prefix (`pod.cmd.*`, `job.>`). */
  subject?: string;
  commandId?: string;
  /** User id of the actor (`system` for the apps' own commands). */
  actor?: string;
  /** Include the copies earlier replays published (off by default: they repeat their originals). */
  includeReplays?: boolean;
}

/** A subject matches a NATS pattern: `*` is one token, a trailing `>` is one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return i === p.length - 1 && s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

/** Whether a subject pattern is well formed (tokens non-empty, `>` only last). */
export function isSubjectPattern(pattern: string): boolean {
  const tokens = pattern.split('.');
  return tokens.every(
    (t, i) =>
      /^[A-Za-z0-9_*>-]+$/.test(t) &&
      (t === '*' || t === '>' || !/[*>]/.test(t)) &&
      (t !== '>' || i === tokens.length - 1),
  );
}

export function matches(selection: Selection, command: RecordedCommand): boolean {
  if (selection.fromSeq !== undefined && command.seq < selection.fromSeq) return false;
  if (selection.toSeq !== undefined && command.seq > selection.toSeq) return false;
  if (selection.since && command.recordedAt < selection.since) return false;
  if (selection.until && command.recordedAt > selection.until) return false;
  if (selection.subject && !subjectMatches(selection.subject, command.subject)) return false;
  if (selection.commandId && command.envelope.commandId !== selection.commandId) return false;
  if (selection.actor && command.envelope.actor?.userId !== selection.actor) return false;
  if (!selection.includeReplays && command.replayOf !== undefined) return false;
  return true;
}

export class SelectionError extends Error {}

/** Builds a selection from the CLI's option values, with one clear message per bad value. */
export function parseSelection(values: Record<string, string | boolean | undefined>): Selection {
  const selection: Selection = {};
  const seq = (name: string): number | undefined => {
    const raw = values[name];
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (typeof raw !== 'string' || !Number.isSafeInteger(n) || n < 1) {
      throw new SelectionError(
        `--${name} must be a stream sequence (a whole number from 1), not ${String(raw)}`,
      );
    }
    return n;
  };
  const time = (name: string): Date | undefined => {
    const raw = values[name];
    if (raw === undefined) return undefined;
    const date = new Date(String(raw));
    if (typeof raw !== 'string' || Number.isNaN(date.getTime())) {
      throw new SelectionError(
        `--${name} must be an ISO-8601 time (2026-11-21T10:00:00Z), not ${String(raw)}`,
      );
    }
    return date;
  };
  selection.fromSeq = seq('from-seq');
  selection.toSeq = seq('to-seq');
  selection.since = time('since');
  selection.until = time('until');
  if (selection.fromSeq && selection.toSeq && selection.fromSeq > selection.toSeq) {
    throw new SelectionError(`--from-seq ${selection.fromSeq} is after --to-seq ${selection.toSeq}`);
  }
  if (selection.since && selection.until && selection.since > selection.until) {
    throw new SelectionError('--since is after --until');
  }
  if (typeof values.subject === 'string') {
    if (!isSubjectPattern(values.subject)) {
      throw new SelectionError(
        `--subject must be a NATS subject pattern like pod.cmd.* or job.>, not ${values.subject}`,
      );
    }
    selection.subject = values.subject;
  }
  if (typeof values['command-id'] === 'string') selection.commandId = values['command-id'];
  if (typeof values.actor === 'string') selection.actor = values.actor;
  if (values['include-replays'] === true) selection.includeReplays = true;
  for (const key of Object.keys(selection) as (keyof Selection)[]) {
    if (selection[key] === undefined) delete selection[key];
  }
  return selection;
}
