import { describe, expect, it } from '@jest/globals';
import type { LbEndpointLoad, LbLoadReport } from '@app/contracts';
import { sumLoad } from './lb-load-board.js';

const NOW = 1_000_000;

function report(gatewayId: string, endpoints: LbEndpointLoad[], intervalMs = 500): LbLoadReport {
  return { gatewayId, intervalMs, endpoints };
}
const ep = (endpointId: string, inFlight: number, waiting: number, workers: Record<string, number> = {}) => ({
  endpointId,
  inFlight,
  waiting,
  workers,
});

describe('sumLoad', () => {
  it.each<{
    name: string;
    reports: { report: LbLoadReport; at: number }[];
    expected: { inFlight: number; waiting: number; busyWorkerIds: string[] };
  }>([
    { name: 'no gateway heard from', reports: [], expected: { inFlight: 0, waiting: 0, busyWorkerIds: [] } },
    {
      name: 'one gateway, the endpoint idle (not in its report)',
      reports: [{ report: report('g1', [ep('other', 4, 0, { w9: 4 })]), at: NOW }],
      expected: { inFlight: 0, waiting: 0, busyWorkerIds: [] },
    },
    {
      name: 'summed over gateways, busy workers once each, sorted',
      reports: [
        { report: report('g1', [ep('e', 2, 1, { b: 1, a: 1 })]), at: NOW - 100 },
        { report: report('g2', [ep('e', 3, 0, { b: 3 })]), at: NOW - 400 },
      ],
      expected: { inFlight: 5, waiting: 1, busyWorkerIds: ['a', 'b'] },
    },
    {
      name: 'a report older than three intervals is of a gateway gone: not counted',
      reports: [
        { report: report('g1', [ep('e', 2, 0, { a: 2 })]), at: NOW - 1501 },
        { report: report('g2', [ep('e', 1, 0, { b: 1 })], 1000), at: NOW - 2500 },
      ],
      expected: { inFlight: 1, waiting: 0, busyWorkerIds: ['b'] },
    },
    {
      name: 'a worker listed with 0 is not busy',
      reports: [{ report: report('g1', [ep('e', 0, 2, { a: 0 })]), at: NOW }],
      expected: { inFlight: 0, waiting: 2, busyWorkerIds: [] },
    },
  ])('$name', ({ reports, expected }) => {
    expect(sumLoad(reports, 'e', NOW)).toEqual(expected);
  });
});
