import { describe, expect, it } from '@jest/globals';
import type { CommandEnvelope } from '@app/contracts';
import {
  SelectionError,
  isSubjectPattern,
  matches,
  parseSelection,
  subjectMatches,
  type RecordedCommand,
} from './selection.js';

const command = (seq: number, subject: string, extra: Partial<RecordedCommand> = {}): RecordedCommand => ({
  seq,
  subject,
  recordedAt: new Date(Date.UTC(2026, 10, 21, 10, 0, seq)),
  envelope: {
    commandId: `c${seq}`,
    issuedAt: '2026-11-21T10:00:00.000Z',
    actor: { userId: seq % 2 ? 'alice' : 'system', kind: seq % 2 ? 'user' : 'system' },
    correlationId: `r${seq}`,
    subject,
    payload: {},
  } satisfies CommandEnvelope,
  ...extra,
});

describe('subject patterns', () => {
  it.each([
    ['pod.cmd.*', 'pod.cmd.create', true],
    ['pod.cmd.*', 'pod.cmd', false],
    ['pod.>', 'pod.cmd.create', true],
    ['pod.>', 'pod', false],
    ['*.cmd.create', 'cluster.cmd.create', true],
    ['job.cmd.submit', 'job.cmd.submit', true],
    ['job.cmd.submit', 'job.cmd.submit.x', false],
    ['registry-auth.cmd.*', 'registry-auth.cmd.delete', true],
  ])('%s matches %s: %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });

  it('rejects malformed patterns', () => {
    expect(isSubjectPattern('pod.>.cmd')).toBe(false);
    expect(isSubjectPattern('pod..cmd')).toBe(false);
    expect(isSubjectPattern('po*d.cmd')).toBe(false);
    expect(isSubjectPattern('pod cmd')).toBe(false);
    expect(isSubjectPattern('pod.cmd.>')).toBe(true);
  });
});

describe('selection', () => {
  it('combines every filter with AND, bounds inclusive', () => {
    const selection = parseSelection({
      'from-seq': '2',
      'to-seq': '5',
      subject: 'pod.cmd.*',
      actor: 'alice',
    });
    const picked = [
      command(1, 'pod.cmd.create'),
      command(3, 'pod.cmd.stop'),
      command(4, 'pod.cmd.stop'),
      command(5, 'job.cmd.submit'),
      command(5, 'pod.cmd.start'),
      command(7, 'pod.cmd.start'),
    ].filter((c) => matches(selection, c));
    expect(picked.map((c) => `${c.seq} ${c.subject}`)).toEqual(['3 pod.cmd.stop', '5 pod.cmd.start']);
  });

  it('selects by recording time and command id, and leaves replayed copies out unless asked', () => {
    const byTime = parseSelection({ since: '2026-11-21T10:00:02Z', until: '2026-11-21T10:00:03Z' });
    expect(
      [1, 2, 3, 4]
        .map((s) => command(s, 'x.cmd.y'))
        .filter((c) => matches(byTime, c))
        .map((c) => c.seq),
    ).toEqual([2, 3]);
    expect(matches(parseSelection({ 'command-id': 'c3' }), command(3, 'a.cmd.b'))).toBe(true);
    expect(matches(parseSelection({ 'command-id': 'c3' }), command(4, 'a.cmd.b'))).toBe(false);
    const copy = command(9, 'a.cmd.b', { replayOf: 3 });
    expect(matches(parseSelection({}), copy)).toBe(false);
    expect(matches(parseSelection({ 'include-replays': true }), copy)).toBe(true);
  });

  it('explains each bad value', () => {
    const error = (values: Record<string, string>) => {
      try {
        parseSelection(values);
      } catch (e) {
        expect(e).toBeInstanceOf(SelectionError);
        return (e as Error).message;
      }
      throw new Error('no error');
    };
    expect(error({ 'from-seq': '0' })).toContain('--from-seq must be a stream sequence');
    expect(error({ 'to-seq': '1.5' })).toContain('--to-seq must be a stream sequence');
    expect(error({ 'from-seq': '9', 'to-seq': '3' })).toBe('--from-seq 9 is after --to-seq 3');
    expect(error({ since: 'yesterday' })).toContain('--since must be an ISO-8601 time');
    expect(error({ since: '2026-11-22T00:00:00Z', until: '2026-11-21T00:00:00Z' })).toBe(
      '--since is after --until',
    );
    expect(error({ subject: 'pod.>.x' })).toContain('--subject must be a NATS subject pattern');
  });
});
