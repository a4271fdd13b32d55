import { describe, expect, it } from '@jest/globals';
import { Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { validatePlain } from './validation.js';

class Limits {
  @IsInt()
  @Min(1)
  count: number;
}

class Sample {
  @IsString()
  @IsNotEmpty()
  name: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => Limits)
  limits?: Limits;
}

function errorsOf(plain: unknown): string[] {
  const result = validatePlain(Sample, plain);
  if (result.ok) throw new Error(`expected ${JSON.stringify(plain)} to be rejected`);
  return result.errors;
}

describe('validatePlain', () => {
  it('accepts a valid payload and returns an instance of the class', () => {
    const result = validatePlain(Sample, { name: 'a', limits: { count: 2 } });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toBeInstanceOf(Sample);
    expect(result.value.limits).toBeInstanceOf(Limits);
    expect(result.value).toEqual({ name: 'a', limits: { count: 2 } });
  });

  it('says only the kind of a value of the wrong kind, not the range checks it fails with it', () => {
    expect(errorsOf({ name: 'a', limits: { count: 'two' } })).toEqual([
      'limits.count must be an integer number',
    ]);
    expect(errorsOf({ name: 'a', limits: { count: 0 } })).toEqual(['limits.count must not be less than 1']);
  });

  it('rejects an unknown property and names it', () => {
    const errors = errorsOf({ name: 'a', colour: 'blue' });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^colour\b/);
    expect(errors[0]).toContain('should not exist');
  });

  it('names each failing property, one string per failure', () => {
    const errors = errorsOf({ name: '' });
    expect(errors).toEqual(['name should not be empty']);
  });

  it('names nested failures by their path', () => {
    expect(errorsOf({ name: 'a', limits: { count: 0 } })).toEqual(['limits.count must not be less than 1']);
    const unknownNested = errorsOf({ name: 'a', limits: { count: 1, extra: true } });
    expect(unknownNested).toHaveLength(1);
    expect(unknownNested[0]).toMatch(/^limits\.extra\b/);
  });

  it('reports several failures at once', () => {
    const errors = errorsOf({ name: 7, limits: { count: 'x' }, other: 1 });
    expect(errors.some((e) => e.startsWith('name '))).toBe(true);
    expect(errors.some((e) => e.startsWith('limits.count '))).toBe(true);
    expect(errors.some((e) => e.startsWith('other'))).toBe(true);
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'name'],
    ['a number', 42],
    ['an array', [{ name: 'a' }]],
  ])('rejects %s as payload', (_label, plain) => {
    expect(validatePlain(Sample, plain)).toEqual({ ok: false, errors: ['payload must be an object'] });
  });
});
