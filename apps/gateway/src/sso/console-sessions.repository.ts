import { Injectable } from '@nestjs/common';
import { DataSource, LessThan, type Repository } from 'typeorm';
import { ConsoleSessionEntity } from './console-session.entity.js';
import { SsoLoginEntity } from './sso-login.entity.js';

/** The console's sessions and sign-ins under way; times are the caller's (no wall clock in a repository). */
@Injectable()
export class ConsoleSessionsRepository {
  private readonly sessions: Repository<ConsoleSessionEntity>;
  private readonly logins: Repository<SsoLoginEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.sessions = dataSource.getRepository(ConsoleSessionEntity);
    this.logins = dataSource.getRepository(SsoLoginEntity);
  }

  async insert(session: ConsoleSessionEntity): Promise<void> {
    await this.sessions.insert(session);
  }

  find(idHash: string): Promise<ConsoleSessionEntity | null> {
    return this.sessions.findOneBy({ idHash });
  }

  async touch(idHash: string, at: Date): Promise<void> {
    await this.sessions.update({ idHash }, { lastSeenAt: at });
  }

  async setAccount(idHash: string, accountId: string): Promise<void> {
    await this.sessions.update({ idHash }, { accountId });
  }

  /** Whether there was such a session. */
  async delete(idHash: string): Promise<boolean> {
    const result = await this.sessions.delete({ idHash });
    return (result.affected ?? 0) > 0;
  }

  /** Sessions past their absolute end or idle since before `idleSince`, and sign-ins past theirs. */
  async deleteExpired(now: Date, idleSince: Date): Promise<void> {
    await this.sessions
      .createQueryBuilder()
      .delete()
      .where('expires_at <= :now OR last_seen_at <= :idleSince', { now, idleSince })
      .execute();
    await this.logins.delete({ expiresAt: LessThan(now) });
  }

  /** Inserts the sign-in after deleting those past their expiry, so abandoned sign-ins cannot pile up. */
  async insertLogin(login: SsoLoginEntity, now: Date): Promise<void> {
    await this.logins.delete({ expiresAt: LessThan(now) });
    await this.logins.insert(login);
  }

  /** The sign-in, deleted in the same statement so a callback replayed finds nothing; null if gone or expired. */
  async takeLogin(idHash: string, now: Date): Promise<SsoLoginEntity | null> {
    const table = this.dataSource.getMetadata(SsoLoginEntity).tablePath;
    const [rows] = await this.dataSource.query<[{ return_to: string; expires_at: Date }[], number]>(
      `DELETE FROM ${table} WHERE id_hash = $1 RETURNING return_to, expires_at`,
      [idHash],
    );
    const row = rows[0];
    if (!row || new Date(row.expires_at) <= now) return null;
    return Object.assign(new SsoLoginEntity(), {
      idHash,
      returnTo: row.return_to,
      expiresAt: row.expires_at,
    });
  }
}
