import { describe, expect, it } from '@jest/globals';
import { Subjects, type EventSubject, type PodStatusChangedEvent } from '@app/contracts';
import type { CommandContext, EventContext } from './handler-context.js';
import { EVENT_HANDLER, EventHandler } from './handler.decorators.js';

class StatusSubscriber {
  @EventHandler(Subjects.pod.statusChanged)
  onStatus(_ctx: EventContext<PodStatusChangedEvent>): void {}
}

// Compile-time checks, run by the type-check of the tests (`tsc -p tsconfig.test.json`, in `npm test` and
// `npm run typecheck`): each marked line must fail to compile, or `@ts-expect-error` is itself the error.
export class WrongSubscriber {
  // @ts-expect-error a handler of cluster.evt.deleted cannot take a pod status event
  @EventHandler(Subjects.cluster.deleted)
  onDeleted(_ctx: EventContext<PodStatusChangedEvent>): void {}
}

export async function wrongEmits(ctx: CommandContext): Promise<void> {
  // @ts-expect-error template.evt.deleted carries the template's id and its owner's
  await ctx.emit(Subjects.template.deleted, { id: 'tpl-1' });
  // @ts-expect-error a command subject is not an event subject
  await ctx.emit(Subjects.template.delete, { id: 'tpl-1', ownerId: 'u-1' });
  await ctx.emit(Subjects.template.deleted, { id: 'tpl-1', ownerId: 'u-1' });
}

/** Every subject string of `Subjects`. */
type SubjectOf<T> = T extends string ? T : { [K in keyof T]: SubjectOf<T[K]> }[keyof T];
type EventSubjectOfSubjects = Extract<SubjectOf<typeof Subjects>, `${string}.evt.${string}`>;

/** True only when every `*.evt.*` subject has its payload in EventContracts (and the map names no other). */
type Complete = [
  Exclude<EventSubjectOfSubjects, EventSubject>,
  Exclude<EventSubject, EventSubjectOfSubjects>,
] extends [never, never]
  ? true
  : false;
export const everyEventTyped: Complete = true;

describe('typed events', () => {
  it('registers an event handler under its subject', () => {
    const method = Object.getOwnPropertyDescriptor(StatusSubscriber.prototype, 'onStatus')!.value as object;
    expect(Reflect.getMetadata(EVENT_HANDLER, method)).toBe(Subjects.pod.statusChanged);
  });
});
