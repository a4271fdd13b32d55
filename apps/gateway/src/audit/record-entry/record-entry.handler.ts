import { Injectable } from '@nestjs/common';
import { Subjects, type AuditRecordedEvent } from '@app/contracts';
import { EventHandler, type EventContext } from '@app/messaging';
import { AuditEntriesRepository } from '../audit-entries.repository.js';

/**
 * Keeps each audited command's entry, whichever owner recorded it: applied once (the event's processed row), and
 * a replayed command's event has the same id and entry, so a rebuild writes the same rows.
 */
@Injectable()
export class RecordEntryHandler {
  constructor(private readonly entries: AuditEntriesRepository) {}

  @EventHandler(Subjects.audit.recorded)
  async handle(ctx: EventContext<AuditRecordedEvent>): Promise<void> {
    await this.entries.insert(ctx.event.payload, ctx.manager);
  }
}
