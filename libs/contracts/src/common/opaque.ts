import { Exclude } from 'class-transformer';
import { Allow } from 'class-validator';

/** Property names declared on classes, looked up with those of the classes' ancestors. */
class KeysByClass {
  private readonly declared = new Map<object, string[]>();
  private readonly resolved = new Map<object, readonly string[]>();

  add(cls: object, key: string | symbol): void {
    const keys = this.declared.get(cls) ?? [];
    keys.push(String(key));
    this.declared.set(cls, keys);
    this.resolved.clear(); // classes are defined at load time: nothing is looked up before the last one
  }

  of(cls: object): readonly string[] {
    let keys = this.resolved.get(cls);
    if (keys === undefined) {
      const all: string[] = [];
      for (
        let c: unknown = cls;
        typeof c === 'function' && c !== Function.prototype;
        c = Object.getPrototypeOf(c)
      ) {
        all.push(...(this.declared.get(c) ?? []));
      }
      this.resolved.set(cls, (keys = all));
    }
    return keys;
  }
}

const payloadKeys = new KeysByClass();
const bodyKeys = new KeysByClass();

/**
 * A property whose value is the caller's own JSON, passed on as it is: a job's input, a worker's output. Allowed
 * whatever it holds (class-validator) and left out of class-transformer's copy (validatePlain puts the value itself
 * back, restoreOpaque): class-transformer copies a plain value key by key, which for a large nested input cost
 * several times its JSON parse (a 660 KB input: 27–29 ms where JSON.parse and stringify take 9), on the queue
 * broker's one event loop, once per command. Other rules on the property (IsDefined, say) still apply.
 *
 * For payload classes that validatePlain reads; a DTO of Nest's ValidationPipe would lose the value instead (it
 * has OpaqueInBody).
 */
export function Opaque(): PropertyDecorator {
  return (target, key) => {
    Allow()(target, key);
    Exclude({ toClassOnly: true })(target, key);
    payloadKeys.add(target.constructor, key);
  };
}

/**
 * The same for a request body's DTO that Nest's ValidationPipe builds (a job's input in `/run`): the gateway's pipe
 * validates the body with a stand-in of the same kind in the property's place (`{}` for an object, `[]` for an
 * array; anything else as it is) and hands the controller the value itself. So the property's rules may look at
 * what kind of value it is (defined, an object), never inside it.
 */
export function OpaqueInBody(): PropertyDecorator {
  return (target, key) => bodyKeys.add(target.constructor, key);
}

/** The OpaqueInBody properties of a DTO class (none for most). */
export function opaqueBodyKeys(cls: object): readonly string[] {
  return bodyKeys.of(cls);
}

/** An instance class-transformer made from a class (not a plain object or array it copied). */
function isClassInstance(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto !== null && proto !== Object.prototype;
}

/**
 * Puts each opaque value of `plain` back on `instance`, the result of class-transformer's plainToInstance of it,
 * and on the class instances nested in it (each property and array element class-transformer built from a class;
 * plain objects it copied are not walked). The values are the plain ones themselves, not copies.
 */
export function restoreOpaque(instance: object, plain: unknown): void {
  if (typeof plain !== 'object' || plain === null) return;
  const source = plain as Record<string, unknown>;
  const target = instance as Record<string, unknown>;
  for (const key of payloadKeys.of(instance.constructor)) {
    if (Object.prototype.hasOwnProperty.call(source, key)) target[key] = source[key];
  }
  for (const key of Object.keys(target)) {
    const value = target[key];
    if (isClassInstance(value)) restoreOpaque(value, source[key]);
    else if (Array.isArray(value) && Array.isArray(source[key])) {
      const items = source[key] as unknown[];
      value.forEach((item, i) => {
        if (isClassInstance(item)) restoreOpaque(item, items[i]);
      });
    }
  }
}
