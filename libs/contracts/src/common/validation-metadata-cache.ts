import { getMetadataStorage, useContainer } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Metadata = ReturnType<Storage['getTargetValidationMetadatas']>;
type Target = Parameters<Storage['getTargetValidationMetadatas']>[0];

let installed = false;

/**
 * class-validator's instances (one per rule class) by class, in a Map. Its default container keeps them in an
 * array searched with `find` on every rule of every validation, and every built-in decorator use defines a class
 * of its own (register-decorator.ts), so the array holds one entry per decorated property the process has
 * validated: the search was about 15 % of `validatePlain` in the queue broker under the job load (V8 profiles of the
 * jobs-sync bench, issue 13). Same instances, made the same way (`new Class()`, once each), found in O(1).
 */
class ValidatorInstances {
  private readonly instances = new Map<unknown, unknown>();

  get<T>(someClass: new () => T): T {
    let instance = this.instances.get(someClass) as T | undefined;
    if (instance === undefined) this.instances.set(someClass, (instance = new someClass()));
    return instance;
  }
}

/**
 * Installs ValidatorInstances as class-validator's container, and remembers its answer to "which rules apply to
 * this class" per class and options.
 *
 * class-validator 0.15 works it out again on every validation of every (nested) object: it filters the class's
 * own rules and walks every class it knows with `instanceof` to collect inherited ones. Every command a broker
 * applies and every body the gateway validates paid for that walk: 2.7–3.5 % of the gateway's and the queue
 * broker's CPU under the job load (V8 profiles of the throughput bench, issue 13). The answer only changes when
 * rules are added to the class or a parent, which decorators do when the class is defined, before its first
 * validation; nothing here registers rules later (no schemas, no `registerDecorator` after start-up).
 */
export function cacheValidationMetadata(): void {
  if (installed) return;
  installed = true;
  useContainer(new ValidatorInstances());
  const storage = getMetadataStorage();
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const cache = new Map<Target, Map<string, Metadata>>();
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}`;
    let perTarget = cache.get(target);
    if (!perTarget) cache.set(target, (perTarget = new Map<string, Metadata>()));
    let found = perTarget.get(key);
    if (!found) perTarget.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    return found;
  };
}
