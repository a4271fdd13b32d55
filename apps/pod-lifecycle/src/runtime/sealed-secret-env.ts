import type { SealedEnv } from '@app/contracts';
import type { SecretBox } from '@app/platform';
import type { SecretEnv } from './runtime-driver.js';

/**
 * A pod's sealed secret variables as a driver gets them: names at once, values decrypted only by `open()`, each
 * with the context it was sealed under. Errors name the variable and why (the key id, the missing ring), never
 * a value.
 */
export function sealedSecretEnv(sealed: SealedEnv, box: SecretBox | null): SecretEnv {
  const names = Object.keys(sealed).sort();
  return {
    names,
    open: () => {
      const opened: Record<string, string> = {};
      for (const name of names) {
        if (!box) throw new Error(`secret variable ${name} cannot be opened: REGISTRY_AUTH_KEYS is not set`);
        try {
          opened[name] = box.open(sealed[name].sealed, sealed[name].context);
        } catch (error) {
          throw new Error(`secret variable ${name} cannot be opened: ${(error as Error).message}`, {
            cause: error,
          });
        }
      }
      return opened;
    },
  };
}
