import { describe, expect, it } from '@jest/globals';
import { replayScopeOf } from '@app/contracts';
import { lanesOf } from './replay-feed.service.js';

describe('lanesOf', () => {
  const scope = (s: string) => s.split(',');

  it('keeps items whose scopes overlap, even through others, in one lane, in order', () => {
    const items = ['e:1,w:a', 'e:2,w:b', 'e:3', 'e:1,w:a', 'e:3,w:b', 'e:4'];
    const lanes = lanesOf(items, scope, 4);
    // e:2 and e:3 are joined by worker b; e:1 and e:4 stand alone.
    expect(lanes).toEqual([['e:1,w:a', 'e:1,w:a'], ['e:2,w:b', 'e:3', 'e:3,w:b'], ['e:4']]);
  });

  it('deals independent groups over at most `max` lanes', () => {
    const lanes = lanesOf(['e:1', 'e:2', 'e:3', 'e:1'], scope, 2);
    expect(lanes).toEqual([['e:1', 'e:3', 'e:1'], ['e:2']]);
  });
});

describe('replayScopeOf', () => {
  it('scopes job and worker commands by endpoint and worker; anything else runs alone', () => {
    expect(replayScopeOf('job.cmd.submit', { endpointId: 'e1', sync: false })).toEqual(['endpoint:e1']);
    expect(replayScopeOf('worker.cmd.take', { endpointId: 'e1', workerId: 'w1' })).toEqual([
      'endpoint:e1',
      'worker:w1',
    ]);
    expect(replayScopeOf('job.cmd.sweep', { detectLostWorkers: true })).toBeNull();
    expect(replayScopeOf('pod.cmd.create', { podId: 'p' })).toBeNull();
  });
});
