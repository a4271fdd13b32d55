import { describe, expect, it } from '@jest/globals';
import { REQUEST_COMMANDS, requests } from './replayer.js';
import type { RecordedCommand } from './selection.js';

const command = (seq: number, subject: string): RecordedCommand => ({
  seq,
  subject,
  recordedAt: new Date(0),
  envelope: {
    commandId: `c${seq}`,
    issuedAt: '',
    actor: { userId: 'u', kind: 'user' },
    correlationId: '',
    subject,
    payload: {},
  },
});

describe('requests', () => {
  it('cuts the commands into runs of one owner, in order', () => {
    const commands = [
      command(1, 'job.cmd.submit'),
      command(2, 'worker.cmd.take'),
      command(3, 'pod.cmd.create'),
      command(4, 'template.cmd.create'),
      command(5, 'job.cmd.submit'),
    ];
    expect([...requests(commands)].map((r) => [r.owner, r.commands.map((c) => c.seq)])).toEqual([
      ['queue-broker', [1, 2]],
      ['pod-lifecycle', [3, 4]],
      ['queue-broker', [5]],
    ]);
  });

  it('keeps a request to REQUEST_COMMANDS commands', () => {
    const commands = Array.from({ length: REQUEST_COMMANDS + 1 }, (_, i) => command(i + 1, 'job.cmd.submit'));
    expect([...requests(commands)].map((r) => r.commands.length)).toEqual([REQUEST_COMMANDS, 1]);
  });

  it('sends the decision known for a command beside it, and counts it in the request size', () => {
    const commands = [command(1, 'job.cmd.submit'), command(2, 'worker.cmd.take')];
    const decidedOf = (c: RecordedCommand) =>
      c.subject === 'worker.cmd.take' ? { jobIds: ['j1', 'j2'] } : undefined;
    const [request] = [...requests(commands, decidedOf)];
    expect(request.feed).toEqual([
      { subject: 'job.cmd.submit', envelope: commands[0].envelope },
      { subject: 'worker.cmd.take', envelope: commands[1].envelope, decided: { jobIds: ['j1', 'j2'] } },
    ]);
    const large = (c: RecordedCommand) => ({
      jobIds: Array.from({ length: 64 }, (_, i) => `${c.seq}-${i}`.repeat(40)),
    });
    const takes = Array.from({ length: REQUEST_COMMANDS }, (_, i) => command(i + 1, 'worker.cmd.take'));
    expect([...requests(takes, large)].length).toBeGreaterThan(1);
  });
});
