import type { EntityManager } from 'typeorm';

/**
 * Who still pulls with a credential, asked before it is deleted. The features that reference credentials answer
 * (their repositories implement these; persistence.module.ts wires them), so registry-auth depends on neither.
 */
export abstract class TemplatesUsingRegistryAuth {
  /** The id of a template that pulls with the credential, or null. */
  abstract registryAuthInUse(registryAuthId: string, manager: EntityManager): Promise<string | null>;
}

export abstract class PodsUsingRegistryAuth {
  /** The id of a pod, not terminated, that pulls with the credential, or null. */
  abstract registryAuthInUse(registryAuthId: string, manager: EntityManager): Promise<string | null>;
}
