import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Metadata = ReturnType<Storage['getTargetValidationMetadatas']>;
type Target = Parameters<Storage['getTargetValidationMetadatas']>[0];

let installed = false;

/**
 * Remembers class-validator's answer to "which rules apply to this class" per class and options.
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
