import { expect } from '@jest/globals';
import { ConfigError, loadConfig } from '@app/config';

/** What `loadConfig` says of `vars` for `cls`: 'accepted', or the ConfigError's message (any other error fails). */
export function configRefusal<T extends object>(cls: new () => T, vars: Record<string, string>): string {
  try {
    loadConfig(cls, vars);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  return 'accepted';
}
