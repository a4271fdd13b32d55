import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES, type AuditPage } from '@app/contracts';
import type { Principal } from '../accounts/principal.js';
import { Auth, CurrentPrincipal, Resource } from '../auth/auth.decorators.js';
import { IntQuery, Operation, TextQuery } from '../openapi/openapi.decorators.js';
import { AUDIT_DEFAULT_LIMIT, AUDIT_MAX_LIMIT } from './audit-filter.js';
import { AuditService } from './audit.service.js';

/** `GET /v2/audit`: the account's audit trail (docs/api.md, "Audit trail"; docs/adr/0035-audit-trail.md). */
@ApiTags('Audit')
@Auth({ key: 'bearer', access: 'read' })
@Resource('audit')
@Controller('v2/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @TextQuery('from', 'entries at or after this time (RFC 3339)')
  @TextQuery('to', 'entries before this time (RFC 3339)')
  @TextQuery('actor', 'entries of this person (user id)')
  @TextQuery('action', 'entries of this action', AUDIT_ACTIONS)
  @TextQuery('resourceType', 'entries about resources of this type', AUDIT_RESOURCE_TYPES)
  @TextQuery('resourceId', 'entries about this resource')
  @TextQuery('cursor', 'the nextCursor of the page before')
  @IntQuery('limit', { min: 1, max: AUDIT_MAX_LIMIT, default: AUDIT_DEFAULT_LIMIT }, 'entries per page')
  @TextQuery('accountId', "an operator's key: only this account's entries")
  @Operation("The account's audit trail, newest first", {
    returns: 'AuditPage',
    description:
      'Every audited command of the account, refused ones included, with who did it (the person, the key, a ' +
      "machine's reason), what, when and its outcome. A team's trail is read by its owners and admins; a key " +
      'of scope `operator` reads every account.',
    errors: { 422: 'an unknown or malformed filter (each named in `errors`)' },
  })
  page(
    @CurrentPrincipal() principal: Principal,
    @Query() query: Record<string, unknown>,
  ): Promise<AuditPage> {
    return this.audit.page(principal, query);
  }
}
