import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DomainError, ErrorCode, isTeamRole, type TeamRole } from '@app/contracts';
import { SCHEMA } from '../schema.js';
import type { Membership } from './sso-claims.js';
import { SsoDirectory } from './sso-directory.js';

/** Postgres' "undefined table" and "undefined column": the accounts' team tables are not migrated in. */
const MISSING = new Set(['42P01', '42703']);

function missingSchema(error: unknown): boolean {
  return MISSING.has((error as { code?: string }).code ?? '');
}

/** SsoDirectory over the gateway's account tables (one statement each, read-only). */
@Injectable()
export class SsoDirectoryRepository extends SsoDirectory {
  private readonly logger = new Logger('sso');

  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async userBySubject(ssoSubject: string): Promise<{ id: string; name: string } | null> {
    try {
      const rows = await this.dataSource.query<{ id: string; name: string }[]>(
        `SELECT id, name FROM "${SCHEMA}"."users" WHERE sso_subject = $1`,
        [ssoSubject],
      );
      return rows[0] ?? null;
    } catch (error) {
      if (!missingSchema(error)) throw error;
      // Said plainly (501) rather than as an internal error: the deployment's accounts lack what sign-in needs.
      throw new DomainError(
        ErrorCode.NotAvailable,
        'single sign-on needs users.sso_subject (account.cmd.create-user with ssoSubject), which this build lacks',
      );
    }
  }

  async teamByName(name: string): Promise<{ id: string; name: string } | null> {
    const rows = await this.dataSource.query<{ id: string; name: string }[]>(
      `SELECT id, name FROM "${SCHEMA}"."teams" WHERE name = $1`,
      [name],
    );
    return rows[0] ?? null;
  }

  async membershipsOf(userId: string): Promise<Membership[]> {
    try {
      const rows = await this.dataSource.query<{ id: string; name: string; role: string }[]>(
        `SELECT t.id, t.name, m.role FROM "${SCHEMA}"."team_members" m
           JOIN "${SCHEMA}"."teams" t ON t.id = m.team_id
          WHERE m.user_id = $1 ORDER BY t.name`,
        [userId],
      );
      return rows
        .filter((r) => isTeamRole(r.role))
        .map((r) => ({ teamId: r.id, teamName: r.name, role: r.role as TeamRole }));
    } catch (error) {
      // Without the team tables a user has their own account only: sign-in still works.
      if (!missingSchema(error)) throw error;
      this.logger.warn('the team tables are missing: console sessions act for the user only');
      return [];
    }
  }

  async roleIn(userId: string, teamId: string): Promise<TeamRole | null> {
    try {
      const rows = await this.dataSource.query<{ role: string }[]>(
        `SELECT role FROM "${SCHEMA}"."team_members" WHERE user_id = $1 AND team_id = $2`,
        [userId, teamId],
      );
      const role = rows[0]?.role;
      return isTeamRole(role) ? role : null;
    } catch (error) {
      if (!missingSchema(error)) throw error;
      return null;
    }
  }
}
