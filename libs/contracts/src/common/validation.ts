import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { restoreOpaque } from './opaque.js';
import { cacheValidationMetadata } from './validation-metadata-cache.js';

// Every process validating with class-validator imports this module: the gateway's pipes as much as the owners.
cacheValidationMetadata();

/** A class whose instances are T (a payload or DTO class). */
export type Class<T> = new (...args: never[]) => T;

/** Flattens class-validator errors into one string per failure, naming the property path. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): string[] {
  const out: string[] = [];
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) {
      out.push(
        message.startsWith(error.property)
          ? `${path}${message.slice(error.property.length)}`
          : `${path}: ${message}`,
      );
    }
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, path));
  }
  return out;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/**
 * Turns a plain object into an instance of `cls` and validates it, rejecting unknown properties. Opaque properties
 * (opaque.ts) keep the plain value itself.
 */
export function validatePlain<T extends object>(cls: Class<T>, plain: unknown): Validated<T> {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    return { ok: false, errors: ['payload must be an object'] };
  }
  const value = plainToInstance(cls as new () => T, plain);
  restoreOpaque(value, plain);
  const errors = validateSync(value, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: false,
  });
  return errors.length ? { ok: false, errors: flattenValidationErrors(errors) } : { ok: true, value };
}
