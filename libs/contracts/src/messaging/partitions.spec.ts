import { describe, expect, it } from '@jest/globals';
import { partitionKeyOf } from './partitions.js';
import { Subjects } from './subjects.js';

describe('partitionKeyOf', () => {
  it.each([
    [Subjects.worker.take, { endpointId: 'ep', workerId: 'w1', batchSize: 1 }, 'w1'],
    [Subjects.worker.done, { endpointId: 'ep', workerId: 'w1', jobId: 'j1' }, 'w1'],
    // The batched posts of one worker: its lane, as each post's own command would be.
    [Subjects.worker.doneMany, { endpointId: 'ep', workerId: 'w1', dones: [] }, 'w1'],
    [Subjects.job.cancel, { endpointId: 'ep', jobId: 'j1' }, 'j1'],
    [Subjects.job.setTtl, { endpointId: 'ep', jobId: 'j1', ttlMs: 60_000 }, 'j1'],
    [Subjects.job.purge, { endpointId: 'ep' }, 'ep'],
    [Subjects.job.rotateWebhookSecret, { endpointId: 'ep', secretSealed: 's' }, 'ep'],
    // A submit names no job yet: its own command id spreads submits over the lanes.
    [Subjects.job.submit, { endpointId: 'ep', sync: false, input: {} }, 'cmd-1'],
    [Subjects.job.sweep, {}, 'cmd-1'],
  ])('%s → its lane key', (subject, payload, key) => {
    expect(partitionKeyOf(subject, payload, 'cmd-1')).toBe(key);
  });

  it('keeps the other domains in one lane', () => {
    expect(partitionKeyOf(Subjects.pod.create, { id: 'p1' }, 'cmd-1')).toBeNull();
    expect(partitionKeyOf(Subjects.cluster.create, { id: 'c1' }, 'cmd-1')).toBeNull();
  });

  it('falls back to the command id when the payload lacks the key', () => {
    expect(partitionKeyOf(Subjects.worker.take, null, 'cmd-2')).toBe('cmd-2');
    expect(partitionKeyOf(Subjects.job.cancel, { jobId: 7 }, 'cmd-2')).toBe('cmd-2');
  });
});
