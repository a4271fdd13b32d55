import { describe, expect, it } from '@jest/globals';
import {
  IsInt,
  IsString,
  Min,
  ValidatorConstraint,
  Validate,
  getFromContainer,
  getMetadataStorage,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { validatePlain } from './validation.js';

class Base {
  @IsString()
  name!: string;
}

class Derived extends Base {
  @IsInt()
  @Min(1)
  count!: number;
}

let made = 0;

@ValidatorConstraint({ name: 'even' })
class Even implements ValidatorConstraintInterface {
  constructor() {
    made += 1;
  }
  validate(value: unknown): boolean {
    return typeof value === 'number' && value % 2 === 0;
  }
  defaultMessage(): string {
    return '$property must be even';
  }
}

class Pair {
  @Validate(Even)
  size!: number;
}

/** validation.ts installs the cache on import; these check that validation answers exactly as before. */
describe('the cached class-validator metadata', () => {
  it('keeps inherited and own rules, validation after validation', () => {
    for (let i = 0; i < 3; i++) {
      expect(validatePlain(Derived, { name: 'a', count: 2 })).toMatchObject({ ok: true });
      expect(validatePlain(Derived, { name: 3, count: 0 })).toEqual({
        ok: false,
        errors: ['count must not be less than 1', 'name must be a string'],
      });
      expect(validatePlain(Base, { name: 'a', count: 'x' })).toEqual({
        ok: false,
        errors: ['count: property count should not exist'],
      });
    }
  });

  it('answers the same list for the same class and options, a separate one for other options', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Derived, '', false, false);
    expect(storage.getTargetValidationMetadatas(Derived, '', false, false)).toBe(first);
    expect(first.map((m) => m.propertyName).sort()).toEqual(['count', 'count', 'name']);
    const grouped = storage.getTargetValidationMetadatas(Derived, '', false, false, ['g']);
    expect(grouped).not.toBe(first);
    expect(grouped).toEqual([]);
  });

  it('makes each rule instance once and finds it again, validation after validation', () => {
    for (let i = 0; i < 3; i++) {
      expect(validatePlain(Pair, { size: 2 })).toMatchObject({ ok: true });
      expect(validatePlain(Pair, { size: 3 })).toEqual({ ok: false, errors: ['size must be even'] });
    }
    expect(getFromContainer(Even)).toBe(getFromContainer(Even));
    expect(made).toBe(1);
  });
});
