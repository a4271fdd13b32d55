import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { ENV_NAME } from '../common/string-record.js';

/**
 * A secret sealed with the deployment's key ring (`SecretBox` of @app/platform, AES-256-GCM) under the associated
 * data `context`, which travels with it: the sealer and the opener need not share anything but the ring (the
 * gateway seals a workers' key bound to its endpoint id; pod-lifecycle, which knows no endpoints, opens it).
 */
export interface SealedValue {
  /** `v1.<kid>.<iv>.<tag>.<ciphertext>`, base64url parts. */
  sealed: string;
  context: string;
}

/** Environment variables whose values are sealed: what the platform injects that must never be stored in clear. */
export type SealedEnv = Record<string, SealedValue>;

/** The shape SecretBox writes (only the shape: whether it opens is known where the ring is). */
export const SEALED_FORMAT = /^v1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

function isSealedValue(value: unknown): value is SealedValue {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { sealed, context, ...rest } = value as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    typeof sealed === 'string' &&
    sealed.length <= 16 * 1024 &&
    SEALED_FORMAT.test(sealed) &&
    typeof context === 'string' &&
    context.length <= 256
  );
}

/** An object of at most `maxEntries` `NAME: {sealed, context}` pairs. */
export function IsSealedEnv(maxEntries = 16, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isSealedEnv',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate(value: unknown): boolean {
          if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
          const entries = Object.entries(value as Record<string, unknown>);
          return (
            entries.length <= maxEntries && entries.every(([k, v]) => ENV_NAME.test(k) && isSealedValue(v))
          );
        },
        defaultMessage(args: ValidationArguments): string {
          return `${args.property} must be an object of at most ${maxEntries} NAME: {sealed, context} pairs`;
        },
      },
    });
  };
}
