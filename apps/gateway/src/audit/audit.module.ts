import { Module } from '@nestjs/common';
import { AuditEntriesRepository } from './audit-entries.repository.js';
import { AuditController } from './audit.controller.js';
import { AuditService } from './audit.service.js';
import { RecordEntryHandler } from './record-entry/record-entry.handler.js';

/** The audit trail: the entries every owner records (audit.evt.recorded), kept and served (GET /v2/audit). */
@Module({
  controllers: [AuditController],
  providers: [AuditEntriesRepository, AuditService, RecordEntryHandler],
})
export class AuditModule {}
