import { describe, expect, it } from '@jest/globals';
import type { RecordLbRequestsCommand } from '@app/contracts';
import { lbRollupDeltas } from './lb-rollups.js';

const tally = (endpointId: string, minute: string, n: number, hist: number[]) => ({
  endpointId,
  minute,
  status2xx: n,
  status4xx: 1,
  status5xx: 0,
  proxyErrors: 2,
  latencyHist: hist,
});

describe('lbRollupDeltas', () => {
  it('adds the tallies into minute and hour rows and raises the gauges in the rows of the command time', () => {
    const command: RecordLbRequestsCommand = {
      gatewayId: 'g',
      requests: [
        tally('ep', '2026-12-01T10:00:00.000Z', 3, [1, 2]),
        tally('ep', '2026-12-01T10:01:00.000Z', 4, [0, 0, 5]),
      ],
      workers: [
        { endpointId: 'ep', running: 1, idle: 2, initializing: 0, unhealthy: 0 },
        { endpointId: 'ep2', running: 0, idle: 0, initializing: 1, unhealthy: 1 },
      ],
    };
    const rows = lbRollupDeltas(command, new Date('2026-12-01T10:01:30.000Z'));
    const view = rows.map((r) => [
      r.endpointId,
      r.stepS,
      r.bucketStart.toISOString(),
      r.lb2xx,
      r.lb4xx,
      r.lbProxyErrors,
      r.lbLatencyHist,
      [r.workersRunning, r.workersIdle, r.workersInitializing, r.workersUnhealthy],
    ]);
    // Ordered as the metrics leader orders its deltas (endpoint, then step as text, then bucket).
    expect(view).toEqual([
      ['ep', 3600, '2026-12-01T10:00:00.000Z', 7, 2, 4, [1, 2, 5], [1, 2, 0, 0]],
      ['ep', 60, '2026-12-01T10:00:00.000Z', 3, 1, 2, [1, 2], [0, 0, 0, 0]],
      ['ep', 60, '2026-12-01T10:01:00.000Z', 4, 1, 2, [0, 0, 5], [1, 2, 0, 0]],
      ['ep2', 3600, '2026-12-01T10:00:00.000Z', 0, 0, 0, [], [0, 0, 1, 1]],
      ['ep2', 60, '2026-12-01T10:01:00.000Z', 0, 0, 0, [], [0, 0, 1, 1]],
    ]);
  });

  it('writes the same rows for the same command (a redelivery or a replay)', () => {
    const command: RecordLbRequestsCommand = {
      gatewayId: 'g',
      requests: [tally('ep', '2026-12-01T10:00:00.000Z', 1, [1])],
      workers: [],
    };
    const at = new Date('2026-12-01T10:00:10.000Z');
    expect(lbRollupDeltas(command, at)).toEqual(lbRollupDeltas(command, at));
  });
});
