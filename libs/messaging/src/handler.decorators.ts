import { SetMetadata } from '@nestjs/common';
import type { CommandSubject, EventPayload, EventSubject, QuerySubject } from '@app/contracts';
import type { EventContext } from './handler-context.js';

export const COMMAND_HANDLER = Symbol('messaging:command-handler');
export const QUERY_HANDLER = Symbol('messaging:query-handler');
export const EVENT_HANDLER = Symbol('messaging:event-handler');

/** Marks a method as the one handler of a command subject. The method receives a CommandContext. */
export const CommandHandler = (subject: CommandSubject): MethodDecorator =>
  SetMetadata(COMMAND_HANDLER, subject);

/** Marks a method as the one handler of a query subject. The method receives a QueryContext. */
export const QueryHandler = (subject: QuerySubject): MethodDecorator => SetMetadata(QUERY_HANDLER, subject);

/**
 * Marks a method as a handler of an event subject (another app's events). Receives an EventContext whose payload
 * is the subject's (`EventContracts`): a method declared for another payload does not compile.
 */
export const EventHandler =
  <S extends EventSubject>(subject: S) =>
  <M extends (ctx: EventContext<EventPayload<S>>) => unknown>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ): void => {
    SetMetadata(EVENT_HANDLER, subject)(target, key, descriptor);
  };
