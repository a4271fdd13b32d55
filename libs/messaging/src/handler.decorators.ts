import { SetMetadata } from '@nestjs/common';
import type { CommandSubject, QuerySubject } from '@app/contracts';

export const COMMAND_HANDLER = Symbol('messaging:command-handler');
export const QUERY_HANDLER = Symbol('messaging:query-handler');
export const EVENT_HANDLER = Symbol('messaging:event-handler');

/** Marks a method as the one handler of a command subject. The method receives a CommandContext. */
export const CommandHandler = (subject: CommandSubject): MethodDecorator =>
  SetMetadata(COMMAND_HANDLER, subject);

/** Marks a method as the one handler of a query subject. The method receives a QueryContext. */
export const QueryHandler = (subject: QuerySubject): MethodDecorator => SetMetadata(QUERY_HANDLER, subject);

/** Marks a method as a handler of an event subject (another app's events). Receives an EventContext. */
export const EventHandler = (subject: string): MethodDecorator => SetMetadata(EVENT_HANDLER, subject);
