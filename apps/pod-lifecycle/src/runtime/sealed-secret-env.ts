import type { SealedEnv } from '@app/contracts';
import type { WorkerKeyBox } from '@app/platform';
import type { SecretEnv } from './runtime-driver.js';

/**
 * A pod's sealed secret variables as a driver gets them: names at once, values decrypted only by `open()`, each
 * with the context it was sealed under. The platform seals only the workers' API key into them (RUNPOD_AI_API_KEY),
 * so they open with the worker key ring, or the registry ring for a key sealed before the split (ADR 30). Errors name the variable and why (the key id, the missing ring), never
 * a value.
 */
export function sealedSecretEnv(sealed: SealedEnv, box: Pick<WorkerKeyBox, 'open'>): SecretEnv {
  const names = Object.keys(sealed).sort();
  return {
    names,
    open: () => {
      const opened: Record<string, string> = {};
      for (const name of names) {
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
