import { describe, expect, it } from '@jest/globals';
import { JobDoneCommand } from '../jobs/worker.contracts.js';
import { SubmitJobCommand, SubmitManyCommand } from '../jobs/job.contracts.js';
import { validatePlain } from './validation.js';

/** The validated value of a payload that must pass. */
function valid<T extends object>(cls: new () => T, plain: object): T {
  const result = validatePlain(cls, plain);
  if (!result.ok) throw new Error(`expected it to pass: ${result.errors.join('; ')}`);
  return result.value;
}

describe('opaque properties (a job input, a worker output) through validatePlain', () => {
  const input = { prompt: 'a', nested: [{ deep: { list: [1, 2, 3] } }], __meta: null };

  it("keep the caller's value itself, nested in a class instance and in an array of them", () => {
    const submit = valid(SubmitJobCommand, {
      endpointId: 'ep1',
      sync: true,
      input,
      take: { endpointId: 'ep1', workerId: 'w1', batchSize: 2 },
    });
    expect(submit).toBeInstanceOf(SubmitJobCommand);
    expect(submit.input).toBe(input);
    const many = valid(SubmitManyCommand, {
      endpointId: 'ep1',
      jobs: [
        { id: 'c1', sync: false, input },
        { id: 'c2', sync: false, input: 'text' },
      ],
    });
    expect(many.jobs[0].input).toBe(input);
    expect(many.jobs[1].input).toBe('text');
    const output = [{ image: 'base64…' }];
    const done = valid(JobDoneCommand, {
      jobId: 'j1',
      endpointId: 'ep1',
      workerId: 'w1',
      output,
      hasOutput: true,
      progress: false,
      stopPod: false,
    });
    expect(done.output).toBe(output);
  });

  it('are absent when the payload has none, and still meet their other rules', () => {
    const done = valid(JobDoneCommand, {
      jobId: 'j1',
      endpointId: 'ep1',
      workerId: 'w1',
      hasOutput: false,
      progress: false,
      stopPod: false,
    });
    expect('output' in done && done.output !== undefined).toBe(false);
    // A submit-many's input is required, null refused (IsDefined), as the edge refuses it.
    for (const missing of [
      { id: 'c1', sync: false },
      { id: 'c1', sync: false, input: null },
    ]) {
      const result = validatePlain(SubmitManyCommand, { endpointId: 'ep1', jobs: [missing] });
      expect(result).toEqual({
        ok: false,
        errors: [expect.stringMatching(/^jobs\.0\.input should not be null or undefined/)],
      });
    }
  });

  it('leave the rest of the payload checked as before: unknown properties beside them are refused', () => {
    const result = validatePlain(SubmitJobCommand, { endpointId: 'ep1', sync: true, input, colour: 'blue' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors).toEqual([expect.stringMatching(/^colour\b.*should not exist/)]);
    const nested = validatePlain(SubmitManyCommand, {
      endpointId: 'ep1',
      jobs: [{ id: 'c1', sync: false, input, extra: 1 }],
    });
    expect(nested.ok).toBe(false);
    if (!nested.ok) {
      expect(nested.errors).toEqual([expect.stringMatching(/^jobs\.0\.extra\b.*should not exist/)]);
    }
  });
});
