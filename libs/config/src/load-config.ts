import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Variables whose values are secrets: a message about a bad one never quotes it (it would end up in a log). */
const SECRET_VARIABLE = /PASSWORD|SECRET|TOKEN|_KEYS$|_KEY_RING$/;

/**
 * Validates the environment against `cls` (unknown variables are ignored, defaults apply). The error names the
 * first bad variable in one line, so a misconfigured process fails fast and says why.
 */
export function loadConfig<T extends object>(
  cls: new () => T,
  env: Record<string, string | undefined> = process.env,
): T {
  const known = new Set([
    ...Object.keys(new cls()),
    ...getMetadataStorage()
      .getTargetValidationMetadatas(cls, '', true, false)
      .map((m) => m.propertyName),
  ]);
  const defined = Object.fromEntries(
    Object.entries(env).filter(([k, v]) => known.has(k) && v !== undefined && v !== ''),
  );
  const config = plainToInstance(cls, defined, { exposeDefaultValues: true });
  const errors = validateSync(config, { skipMissingProperties: false });
  if (errors.length) {
    const first = errors[0];
    const value = (defined as Record<string, string | undefined>)[first.property];
    const why =
      Object.values(first.constraints ?? {})
        .reverse()
        .join('; ') || 'is invalid';
    const shown = SECRET_VARIABLE.test(first.property) ? ' (value not shown)' : `=${JSON.stringify(value)}`;
    throw new ConfigError(
      value === undefined
        ? `config: ${first.property} is not set (${why}); see .env.example`
        : `config: ${first.property}${shown} is invalid: ${why}`,
    );
  }
  return config;
}
