import type { ExecutionContext } from '@nestjs/common';

/** What Nest hands out as a handler or a controller, and what `Reflector` reads. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type Target = Function;

/**
 * What a guard reads from a route's decorators, worked out once per (handler, controller) and then remembered:
 * decorators are fixed when the classes are defined, so looking them up again on every request (several
 * `Reflect.getMetadata` walks per guard) is pure per-request cost.
 */
export class HandlerMetadata<T> {
  private readonly byHandler = new WeakMap<Target, WeakMap<Target, T>>();

  constructor(private readonly resolve: (targets: [Target, Target]) => T) {}

  of(context: ExecutionContext): T {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byClass = this.byHandler.get(handler);
    if (!byClass) {
      byClass = new WeakMap();
      this.byHandler.set(handler, byClass);
    }
    if (byClass.has(controller)) return byClass.get(controller) as T;
    const value = this.resolve([handler, controller]);
    byClass.set(controller, value);
    return value;
  }
}
