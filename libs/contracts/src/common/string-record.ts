import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

/** An environment variable name as containers accept it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,254}$/;

/**
 * An object whose keys are environment variable names and whose values are strings (at most `maxEntries`
 * entries, each value at most 32 KiB): the `env` of pods, templates and clusters.
 */
export function IsEnvRecord(maxEntries = 256, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isEnvRecord',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate(value: unknown): boolean {
          if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
          const entries = Object.entries(value as Record<string, unknown>);
          return (
            entries.length <= maxEntries &&
            entries.every(([k, v]) => ENV_NAME.test(k) && typeof v === 'string' && v.length <= 32 * 1024)
          );
        },
        defaultMessage(args: ValidationArguments): string {
          return `${args.property} must be an object of at most ${maxEntries} NAME: "string value" pairs`;
        },
      },
    });
  };
}
