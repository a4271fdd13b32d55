import { Injectable } from '@nestjs/common';
import type { AuditPage } from '@app/contracts';
import type { Principal } from '../accounts/principal.js';
import { auditReachOf } from './audit-access.js';
import { AuditEntriesRepository } from './audit-entries.repository.js';
import { encodeCursor, parseAuditQuery } from './audit-filter.js';
import { toAuditEntry } from './audit.mapper.js';

/** `GET /v2/audit`: the filters checked (422), the reach decided (403), one indexed page read. */
@Injectable()
export class AuditService {
  constructor(private readonly entries: AuditEntriesRepository) {}

  async page(principal: Principal, query: Record<string, unknown>): Promise<AuditPage> {
    const filter = parseAuditQuery(query);
    const reach = auditReachOf(principal, filter.accountId);
    const { rows, more } = await this.entries.page(reach.account, filter);
    const last = rows.at(-1);
    return {
      entries: rows.map(toAuditEntry),
      nextCursor: more && last ? encodeCursor({ at: last.at, id: last.id }) : null,
    };
  }
}
