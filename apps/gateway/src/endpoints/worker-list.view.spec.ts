import { describe, expect, it } from '@jest/globals';
import { PodStatus, type BrokerWorkerList, type BrokerWorkerView } from '@app/contracts';
import { toLbWorkerList, toWorkerList } from './worker-list.view.js';

const worker = (id: string, extra: Partial<BrokerWorkerView> = {}): BrokerWorkerView => ({
  id,
  status: 'IDLE',
  currentJobs: [],
  currentJobCount: 0,
  isStale: false,
  version: '1.7.9',
  unhealthyReason: null,
  registeredAt: '2026-11-01T00:00:00.000Z',
  lastSeenAt: '2026-11-01T00:00:05.000Z',
  ...extra,
});

const summary = { total: 2, running: 1, idle: 1, initializing: 0, throttled: 0, unhealthy: 0 };

describe('toWorkerList', () => {
  it("joins each worker with its pod's runs by id and keeps the broker's status, jobs and pings", () => {
    const broker: BrokerWorkerList = {
      workers: [
        worker('pod-a', { status: 'RUNNING', currentJobs: ['j1', 'j2'], currentJobCount: 2 }),
        worker('ext'),
      ],
      summary,
    };
    const list = toWorkerList(broker, [
      { podId: 'pod-a', status: PodStatus.Running, restarts: 2, lastStartedAt: '2026-11-01T00:00:01.000Z' },
      { podId: 'pod-other', status: PodStatus.Exited, restarts: 0, lastStartedAt: null },
    ]);
    expect(list.summary).toBe(summary);
    expect(list.workers).toEqual([
      {
        ...broker.workers[0],
        podId: 'pod-a',
        podStatus: PodStatus.Running,
        restarts: 2,
      },
      // Not a pod of the endpoint (a worker run elsewhere with the endpoint's key): no pod, no restarts.
      { ...broker.workers[1], podId: null, podStatus: null, restarts: null },
    ]);
    expect(list.workers[0].currentJobs).toEqual(['j1', 'j2']);
  });
});

describe('toLbWorkerList', () => {
  const run = (podId: string, status: PodStatus, lastStartedAt: string | null = null) => ({
    podId,
    status,
    restarts: 0,
    lastStartedAt,
  });

  it("lists the endpoint's live pods with their last /ping's state, stopped pods left out", () => {
    const now = new Date('2026-11-01T00:01:00.000Z');
    const list = toLbWorkerList(
      [
        run('ready', PodStatus.Running, '2026-11-01T00:00:01.000Z'),
        run('booting', PodStatus.Starting),
        run('sick', PodStatus.Running, '2026-11-01T00:00:02.000Z'),
        run('leaving', PodStatus.Running, '2026-11-01T00:00:03.000Z'),
        run('unheard', PodStatus.Running, '2026-11-01T00:00:04.000Z'),
        run('stopped', PodStatus.Exited),
        run('gone', PodStatus.Terminated),
      ],
      new Map([
        ['ready', 'ready'],
        ['booting', 'initializing'],
        ['sick', 'unhealthy'],
        ['leaving', 'draining'],
        ['stopped', 'ready'],
      ] as const),
      now,
    );
    expect(list.workers.map((w) => [w.id, w.status, w.unhealthyReason])).toEqual([
      ['ready', 'IDLE', null],
      ['booting', 'INITIALIZING', null],
      ['sick', 'UNHEALTHY', 'its /ping did not answer 200 or 204'],
      ['leaving', 'UNHEALTHY', 'draining: out of the rotation before it stops'],
      ['unheard', 'INITIALIZING', null],
    ]);
    expect(list.workers[0]).toMatchObject({
      podId: 'ready',
      podStatus: PodStatus.Running,
      currentJobs: [],
      currentJobCount: 0,
      registeredAt: '2026-11-01T00:00:01.000Z',
    });
    expect(list.workers[1].registeredAt).toBe(now.toISOString());
    expect(list.summary).toEqual({
      total: 5,
      running: 0,
      idle: 1,
      initializing: 2,
      throttled: 0,
      unhealthy: 2,
    });
  });

  it('shows a ready worker with a request of this gateway in flight as RUNNING', () => {
    const now = new Date('2026-11-01T00:01:00.000Z');
    const list = toLbWorkerList(
      [run('busy', PodStatus.Running), run('free', PodStatus.Running), run('sick', PodStatus.Running)],
      new Map([
        ['busy', 'ready'],
        ['free', 'ready'],
        ['sick', 'unhealthy'],
      ] as const),
      now,
      new Map([
        ['busy', 2],
        ['sick', 1],
      ]),
    );
    expect(list.workers.map((w) => [w.id, w.status])).toEqual([
      ['busy', 'RUNNING'],
      ['free', 'IDLE'],
      ['sick', 'UNHEALTHY'],
    ]);
    expect(list.summary).toMatchObject({ running: 1, idle: 1, unhealthy: 1 });
  });
});
