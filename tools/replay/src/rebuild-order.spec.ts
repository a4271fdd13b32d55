import { describe, expect, it } from '@jest/globals';
import { applyOrder } from './live-outcomes.js';
import { excludedColumns } from './rebuild-scope.js';
import type { RecordedCommand } from './selection.js';

const command = (seq: number): RecordedCommand => ({
  seq,
  subject: 'job.cmd.submit',
  recordedAt: new Date(0),
  envelope: {
    commandId: `c${seq}`,
    issuedAt: '',
    actor: { userId: 'u', kind: 'user' },
    correlationId: '',
    subject: '',
    payload: {},
  },
});

describe('rebuild order', () => {
  it('follows the live application times; commands never applied keep their place after their predecessor', () => {
    const commands = [1, 2, 3, 4, 5].map(command);
    // #3 (a take) was applied before #2 (a submit) recorded just ahead of it; #4 was never applied live.
    const live = new Map([
      ['c1', { at: 10 }],
      ['c2', { at: 12 }],
      ['c3', { at: 11 }],
      ['c5', { at: 13 }],
    ]);
    expect(applyOrder(commands, live).map((c) => c.seq)).toEqual([1, 3, 2, 4, 5]);
  });

  it('keeps stream order without live times', () => {
    expect(applyOrder([1, 2, 3].map(command), new Map()).map((c) => c.seq)).toEqual([1, 2, 3]);
  });
});

describe('rebuild scope', () => {
  it('leaves out whole tables, some columns, or nothing', () => {
    expect(excludedColumns('endpoint_autoscaler', 'workers')).toBeNull();
    expect(excludedColumns('pod_lifecycle', 'processed_commands')).toEqual(['processed_at']);
    expect(excludedColumns('queue_broker', 'webhook_deliveries')).toContain('delivered_at');
    expect(excludedColumns('pod_lifecycle', 'pods')).toEqual([]);
    expect(excludedColumns('queue_broker', 'workers')).toEqual([]);
  });
});
