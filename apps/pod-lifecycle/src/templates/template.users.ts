import type { EntityManager } from 'typeorm';

/**
 * The pods still using a template, asked before it is deleted: the pods feature answers (PodRepository, wired in
 * persistence.module.ts), so templates does not depend on pods.
 */
export abstract class PodsUsingTemplate {
  /** The id of a pod, not terminated, made from the template, or null. */
  abstract templateInUse(templateId: string, manager: EntityManager): Promise<string | null>;
}
