import { Body, Controller, Get, HttpCode, Logger, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ErrorCode, type SsoConfigView, type SsoSessionView } from '@app/contracts';
import { Public } from '@app/platform';
import { GatewayConfig } from '../gateway.config.js';
import { ConsoleSessions } from './console-sessions.service.js';
import { OidcClient } from './oidc-client.js';
import { csrfTokenFor, loginCookieName, readCookie, serializeCookie } from './session-cookies.js';
import { LOGIN_TTL_MS, SsoSignIn } from './sso-sign-in.service.js';
import { SwitchAccountDto } from './switch-account.dto.js';

const CALLBACK_PATH = '/console/sso/callback';

/**
 * The console's single sign-on (docs/adr/0036-console-single-sign-on.md). Public routes: each reads its cookie
 * itself (the edge's AuthGuard admits sessions on the API routes). Not part of the RunPod API: left out of the
 * OpenAPI descriptions.
 */
@ApiExcludeController()
@Public()
@Controller('console/sso')
export class SsoController {
  private readonly logger = new Logger('sso');
  private readonly cookies: { secure: boolean };

  constructor(
    private readonly config: GatewayConfig,
    private readonly oidc: OidcClient,
    private readonly signIn: SsoSignIn,
    private readonly sessions: ConsoleSessions,
  ) {
    this.cookies = { secure: config.SSO_COOKIE_SECURE };
  }

  @Get('config')
  configuration(): SsoConfigView {
    return { enabled: this.oidc.enabled, providerName: this.oidc.providerName };
  }

  @Get('login')
  async login(
    @Query('returnTo') returnTo: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    const { secret, url } = await this.signIn.start(this.redirectUri(request), returnTo);
    const cookie = serializeCookie(loginCookieName(this.cookies), secret, LOGIN_TTL_MS / 1000, this.cookies);
    void reply.header('set-cookie', cookie).header('cache-control', 'no-store').redirect(url.href, 302);
  }

  @Get('callback')
  async callback(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    if (!this.oidc.enabled) {
      throw new DomainError(
        ErrorCode.NotFound,
        'single sign-on is not configured on this gateway (OIDC_ISSUER_URL)',
      );
    }
    const name = loginCookieName(this.cookies);
    const secret = readCookie(request.headers.cookie, name);
    const query = new URL(request.url, 'http://callback').search;
    const clearLogin = serializeCookie(name, '', 0, this.cookies);
    try {
      const { sessionId, returnTo } = await this.signIn.finish(
        new URL(this.redirectUri(request) + query),
        secret,
      );
      const session = serializeCookie(
        this.sessions.cookieName,
        sessionId,
        this.config.SSO_SESSION_ABSOLUTE_MS / 1000,
        this.cookies,
      );
      void reply.header('set-cookie', [clearLogin, session]).redirect(`/console/${returnTo}`, 302);
    } catch (error) {
      // Back to the console's sign-in, which shows why (a problem+json page would strand the user).
      if (!(error instanceof DomainError)) this.logger.error(`sign-in failed: ${(error as Error).stack}`);
      const detail =
        error instanceof DomainError ? error.message : 'the sign-in failed (see the gateway log)';
      void reply
        .header('set-cookie', clearLogin)
        .redirect(`/console/?sso_error=${encodeURIComponent(detail.slice(0, 300))}`, 302);
    }
  }

  @Get('session')
  async session(@Req() request: FastifyRequest): Promise<SsoSessionView> {
    const id = this.sessionId(request);
    const state = await this.sessions.state(id);
    if (!state) {
      throw new DomainError(ErrorCode.Unauthenticated, 'your console session has ended: sign in again');
    }
    const accounts = await this.sessions.accountsOf(state.principal);
    const { user, account, role } = state.principal;
    return {
      user: { id: user.id, name: user.name },
      account: { ...account, role },
      accounts,
      csrfToken: csrfTokenFor(id),
    };
  }

  @Post('account')
  @HttpCode(204)
  async switchAccount(@Body() dto: SwitchAccountDto, @Req() request: FastifyRequest): Promise<void> {
    await this.sessions.authenticate(request);
    await this.sessions.switchAccount(this.sessionId(request), dto.accountId);
  }

  @Post('logout')
  @HttpCode(204)
  async logout(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    // A signed-out session is refused like any other: the CSRF check keeps another site from signing users out.
    await this.sessions.authenticate(request);
    await this.sessions.end(this.sessionId(request));
    void reply.header('set-cookie', serializeCookie(this.sessions.cookieName, '', 0, this.cookies));
  }

  private sessionId(request: FastifyRequest): string {
    const id = this.sessions.sessionIdOf(request);
    if (!id) throw new DomainError(ErrorCode.Unauthenticated, 'not signed in: no console session cookie');
    return id;
  }

  /** OIDC_REDIRECT_URL, else this request's own origin (set the setting behind a proxy that rewrites Host). */
  private redirectUri(request: FastifyRequest): string {
    if (this.config.OIDC_REDIRECT_URL) return this.config.OIDC_REDIRECT_URL;
    if (!this.oidc.enabled) return '';
    return `${request.protocol}://${request.host}${CALLBACK_PATH}`;
  }
}
