import { describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode } from '@app/contracts';
import { MAX_JSON_DEPTH, RequestShapePipe } from './request-shape.pipe.js';

const pipe = new RequestShapePipe();

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

function refusal(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.BadRequest);
    return (error as DomainError).message;
  }
}

describe('RequestShapePipe', () => {
  it('passes ordinary parameters and bodies through unchanged', () => {
    const body = { name: 'x', env: { A: 'line\nbreak\ttab' }, list: [1, [2, [3]]] };
    expect(pipe.transform(body, { type: 'body' })).toBe(body);
    expect(pipe.transform('pod-123', { type: 'param', data: 'podId' })).toBe('pod-123');
    expect(pipe.transform({ gpu: 'A100', job_id: ['a', 'b'] }, { type: 'query' })).toEqual({
      gpu: 'A100',
      job_id: ['a', 'b'],
    });
    expect(pipe.transform(nested(MAX_JSON_DEPTH - 1), { type: 'body' })).toEqual(nested(MAX_JSON_DEPTH - 1));
  });

  it('refuses control characters in path and query parameters', () => {
    expect(refusal(() => pipe.transform('a\u0000b', { type: 'param', data: 'podId' }))).toBe(
      'podId must not contain control characters',
    );
    expect(refusal(() => pipe.transform('\u001b[31m', { type: 'query', data: 'wait' }))).toMatch(/^wait /);
    expect(refusal(() => pipe.transform({ job_id: ['ok', 'x\u0007'] }, { type: 'query' }))).toMatch(
      /^job_id /,
    );
  });

  it('refuses bodies nested too deep, without overflowing on 100 000 levels', () => {
    expect(refusal(() => pipe.transform(nested(MAX_JSON_DEPTH + 1), { type: 'body' }))).toMatch(
      /nested deeper/,
    );
    const deepArray = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(refusal(() => pipe.transform(deepArray, { type: 'body' }))).toMatch(/nested deeper/);
  });

  it('refuses NUL in body strings and keys', () => {
    expect(refusal(() => pipe.transform({ name: 'a\u0000' }, { type: 'body' }))).toMatch(/NUL/);
    expect(refusal(() => pipe.transform({ input: { '\u0000': 1 } }, { type: 'body' }))).toMatch(/NUL/);
  });

  it('refuses unpaired UTF-16 surrogates in body strings and keys (jsonb cannot store them), not paired ones', () => {
    const lone = JSON.parse('{"input":{"text":"\\ud800"}}') as unknown;
    expect(refusal(() => pipe.transform(lone, { type: 'body' }))).toMatch(/unpaired UTF-16 surrogate/);
    expect(refusal(() => pipe.transform({ ['\udc00']: 1 }, { type: 'body' }))).toMatch(/surrogate/);
    const paired = JSON.parse('{"input":{"text":"\\ud83d\\ude00 and \\\\ud800 as text"}}') as unknown;
    expect(pipe.transform(paired, { type: 'body' })).toBe(paired);
  });
});
