import { describe, expect, it } from '@jest/globals';
import { pickWorker, type LbCandidate } from './worker-pick.js';

const w = (podId: string): LbCandidate => ({ podId, url: `http://127.0.0.1/${podId}` });
const load = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe('pickWorker', () => {
  it.each<{
    name: string;
    workers: string[];
    outstanding: Record<string, number>;
    tried: string[];
    turn: number;
    picked: string | null;
  }>([
    { name: 'no worker', workers: [], outstanding: {}, tried: [], turn: 0, picked: null },
    { name: 'the only worker', workers: ['a'], outstanding: { a: 7 }, tried: [], turn: 3, picked: 'a' },
    {
      name: 'the least outstanding',
      workers: ['a', 'b', 'c'],
      outstanding: { a: 2, b: 0, c: 1 },
      tried: [],
      turn: 0,
      picked: 'b',
    },
    {
      name: 'a worker without requests counts 0',
      workers: ['a', 'b'],
      outstanding: { a: 1 },
      tried: [],
      turn: 0,
      picked: 'b',
    },
    {
      name: 'ties round-robin by turn (ordered by id)',
      workers: ['c', 'a', 'b'],
      outstanding: {},
      tried: [],
      turn: 1,
      picked: 'b',
    },
    {
      name: 'ties: the turn wraps',
      workers: ['a', 'b'],
      outstanding: { a: 1, b: 1 },
      tried: [],
      turn: 5,
      picked: 'b',
    },
    {
      name: 'a tried worker is skipped even when least loaded',
      workers: ['a', 'b'],
      outstanding: { a: 0, b: 4 },
      tried: ['a'],
      turn: 0,
      picked: 'b',
    },
    {
      name: 'every worker tried',
      workers: ['a', 'b'],
      outstanding: {},
      tried: ['a', 'b'],
      turn: 0,
      picked: null,
    },
  ])('$name', ({ workers, outstanding, tried, turn, picked }) => {
    const chosen = pickWorker(workers.map(w), load(outstanding), new Set(tried), turn);
    expect(chosen?.podId ?? null).toBe(picked);
  });

  it('spreads equal load evenly when the caller advances the turn', () => {
    const counts = new Map<string, number>();
    for (let turn = 0; turn < 30; turn++) {
      const chosen = pickWorker([w('a'), w('b'), w('c')], new Map(), new Set(), turn)!;
      counts.set(chosen.podId, (counts.get(chosen.podId) ?? 0) + 1);
    }
    expect(Object.fromEntries(counts)).toEqual({ a: 10, b: 10, c: 10 });
  });
});
