import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { restoreOpaque } from './opaque.js';
import { cacheValidationMetadata } from './validation-metadata-cache.js';

// Every process validating with class-validator imports this module: the gateway's pipes as much as the owners.
cacheValidationMetadata();

/** A class whose instances are T (a payload or DTO class). */
export type Class<T> = new (...args: never[]) => T;

/** class-validator's checks of a value's kind, which every other check of the same property presumes. */
const KIND_CHECKS = new Set(['isInt', 'isNumber', 'isString', 'isBoolean', 'isArray', 'isObject']);

/**
 * A property's failed checks as they help the caller: a value of the wrong kind (`gpuCount: "two"`) fails its
 * range checks too, which only repeat it in other words, so only its kind check is said.
 */
function messagesOf(constraints: Record<string, string>): string[] {
  const kinds = Object.keys(constraints).filter((name) => KIND_CHECKS.has(name));
  return (kinds.length ? kinds : Object.keys(constraints)).map((name) => constraints[name]);
}

/** Flattens class-validator errors into one string per failure, naming the property path. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): string[] {
  const out: string[] = [];
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    for (const message of messagesOf(error.constraints ?? {})) {
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
