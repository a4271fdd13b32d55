import { Injectable, Logger } from '@nestjs/common';
import { DomainError, ErrorCode, type SsoAccountView, type TeamRole } from '@app/contracts';
import { AccountsService } from '../accounts/accounts.service.js';
import { ApiKeyEntity } from '../accounts/api-key.entity.js';
import type { AccountRef, Principal } from '../accounts/principal.js';
import { GatewayConfig } from '../gateway.config.js';
import { ConsoleSessionEntity } from './console-session.entity.js';
import { ConsoleSessionsRepository } from './console-sessions.repository.js';
import { SessionCache, type SessionState } from './session-cache.js';
import {
  csrfMatches,
  isSafeMethod,
  newSecret,
  readCookie,
  secretHash,
  sessionCookieName,
} from './session-cookies.js';
import { SessionEvents } from './session-events.js';
import { SsoDirectory } from './sso-directory.js';

/** A use refreshes `last_seen_at` at most this often (one write a minute per active session, not one per request). */
const TOUCH_EVERY_MS = 60_000;

/** How many characters of the session hash name its synthetic key (`session:<prefix>`) in audit entries. */
const KEY_ID_PREFIX = 16;

/** The request as the session check reads it (a Fastify request, a Nest one). */
export interface SessionRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

/** An account the signed-in user may act for in the console: their own, and each team they are a member of. */
export type SessionAccount = SsoAccountView;

/**
 * The console's server-side sessions (docs/adr/0036-console-single-sign-on.md): made by a sign-in, read by the
 * edge's AuthGuard for requests without an API key, ended by sign-out on every replica at once.
 */
@Injectable()
export class ConsoleSessions {
  private readonly logger = new Logger('sso');
  readonly cookieName: string;

  constructor(
    private readonly config: GatewayConfig,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly accounts: AccountsService,
    private readonly directory: SsoDirectory,
    private readonly cache: SessionCache,
    private readonly events: SessionEvents,
  ) {
    this.cookieName = sessionCookieName({ secure: config.SSO_COOKIE_SECURE });
  }

  /** The session id from the request's cookie, if it carries one. */
  sessionIdOf(request: SessionRequest): string | null {
    return readCookie(request.headers.cookie, this.cookieName);
  }

  /** A new session of the user, acting for their own account; answers the id for the cookie. */
  async create(userId: string): Promise<string> {
    const id = newSecret();
    const now = new Date();
    await this.sessions.insert(
      Object.assign(new ConsoleSessionEntity(), {
        idHash: secretHash(id),
        userId,
        accountId: userId,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + this.config.SSO_SESSION_ABSOLUTE_MS),
      }),
    );
    // Sweeping here keeps the table to the live sessions without a timer of its own.
    this.sessions
      .deleteExpired(now, new Date(now.getTime() - this.config.SSO_SESSION_IDLE_MS))
      .catch((error: unknown) => this.logger.warn(`expired sessions not swept: ${(error as Error).message}`));
    return id;
  }

  /**
   * The principal of the request's session cookie, or null without one. 401 for a cookie whose session is
   * unknown, ended or expired; 403 for a mutation (any method but GET, HEAD, OPTIONS) without the session's
   * CSRF token in `x-csrf-token`.
   */
  async authenticate(request: SessionRequest): Promise<Principal | null> {
    const id = this.sessionIdOf(request);
    if (!id) return null;
    const state = await this.state(id);
    if (!state) {
      throw new DomainError(ErrorCode.Unauthenticated, 'your console session has ended: sign in again');
    }
    if (!isSafeMethod(request.method) && !csrfMatches(id, request.headers['x-csrf-token'])) {
      throw new DomainError(
        ErrorCode.Forbidden,
        'missing or wrong CSRF token: a change made with a console session needs its x-csrf-token header',
      );
    }
    return state.principal;
  }

  /** The live session of an id (cached briefly), renewing its idle expiry; null when there is none. */
  async state(id: string): Promise<SessionState | null> {
    const hash = secretHash(id);
    const now = Date.now();
    let state = this.cache.get(hash, now);
    if (state === undefined) {
      const ticket = this.cache.ticket();
      state = await this.lookUp(hash);
      this.cache.set(hash, state, ticket, now);
    }
    if (!state) return null;
    const { row } = state;
    if (row.expiresAt.getTime() <= now || row.lastSeenAt.getTime() + this.config.SSO_SESSION_IDLE_MS <= now) {
      this.cache.drop(hash);
      return null;
    }
    if (now - row.lastSeenAt.getTime() >= Math.min(TOUCH_EVERY_MS, this.config.SSO_SESSION_IDLE_MS / 10)) {
      row.lastSeenAt = new Date(now);
      this.sessions.touch(hash, row.lastSeenAt).catch(() => undefined);
    }
    return state;
  }

  private async lookUp(hash: string): Promise<SessionState | null> {
    const row = await this.sessions.find(hash);
    if (!row) return null;
    const user = await this.accounts.findUser(row.userId);
    // A disabled user's sessions are refused like their keys.
    if (!user || user.disabledAt) return null;
    let account: AccountRef = { id: user.id, name: user.name, kind: 'user' };
    let role: TeamRole = 'owner';
    if (row.accountId !== user.id) {
      // A team: the role is read now, so a role changed or a membership ended counts from the next lookup.
      const membership = (await this.directory.membershipsOf(user.id)).find(
        (m) => m.teamId === row.accountId,
      );
      if (membership) {
        account = { id: membership.teamId, name: membership.teamName, kind: 'team' };
        role = membership.role;
      }
    }
    // No key row: a synthetic key of scope `full` (what the session may do is its role), named by the hash.
    const key = Object.assign(new ApiKeyEntity(), {
      id: `session:${hash.slice(0, KEY_ID_PREFIX)}`,
      userId: user.id,
      name: 'console session',
      keyPrefix: 'session',
      keyHash: hash,
      scope: 'full' as const,
      endpointIds: [],
      createdAt: row.createdAt,
      revokedAt: null,
    });
    return { row, principal: { user, key, account, role } };
  }

  /** The accounts the user may switch to: their own first, then their teams by name. */
  async accountsOf(principal: Principal): Promise<SessionAccount[]> {
    const teams = await this.directory.membershipsOf(principal.user.id);
    return [
      { id: principal.user.id, name: principal.user.name, kind: 'user', role: 'owner' },
      ...teams.map((t) => ({ id: t.teamId, name: t.teamName, kind: 'team' as const, role: t.role })),
    ];
  }

  /** Acts for another of the user's accounts from the next request on, on every replica. */
  async switchAccount(id: string, accountId: string): Promise<void> {
    const state = await this.state(id);
    if (!state) {
      throw new DomainError(ErrorCode.Unauthenticated, 'your console session has ended: sign in again');
    }
    const allowed = await this.accountsOf(state.principal);
    if (!allowed.some((a) => a.id === accountId)) {
      throw new DomainError(ErrorCode.NotFound, `you are not a member of ${accountId}`);
    }
    const hash = secretHash(id);
    await this.sessions.setAccount(hash, accountId);
    await this.events.changed({ sessionHash: hash, userId: state.row.userId, reason: 'account-switched' });
  }

  /** Ends the session: its row is deleted, then every replica drops it. */
  async end(id: string): Promise<void> {
    const hash = secretHash(id);
    const state = await this.state(id).catch(() => null);
    await this.sessions.delete(hash);
    await this.events.changed({ sessionHash: hash, userId: state?.row.userId ?? '', reason: 'signed-out' });
  }
}
