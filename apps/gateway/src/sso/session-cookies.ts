import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The console session's cookies and its CSRF token, as pure functions (session-cookies.spec.ts).
 *
 * The session id is 32 random bytes, only ever in the cookie: the database keeps its SHA-256, so a read of the
 * table (a backup, a replica) hands nobody a session. Its CSRF token is derived from it (HMAC keyed by the id),
 * so it is bound to the session, needs no storage, and cannot be computed from the stored hash.
 */

/** `__Host-`: the browser takes the cookie only if Secure, Path=/ and without Domain, so no sub-domain can set it. */
const SECURE_PREFIX = '__Host-';
const SESSION = 'gpucp_session';
const LOGIN = 'gpucp_sso_login';

/** The header a session's mutation must carry (sent by the console from GET /console/sso/session's answer). */
export const CSRF_HEADER = 'x-csrf-token';

export interface CookieOptions {
  /** Secure and `__Host-` (SSO_COOKIE_SECURE); off only for a console on plain http. */
  secure: boolean;
}

export function sessionCookieName(options: CookieOptions): string {
  return options.secure ? `${SECURE_PREFIX}${SESSION}` : SESSION;
}

export function loginCookieName(options: CookieOptions): string {
  return options.secure ? `${SECURE_PREFIX}${LOGIN}` : LOGIN;
}

/** 32 random bytes, base64url: a session id or a sign-in's secret. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The SHA-256 (hex) the database keeps of a session id or a sign-in's secret. */
export function secretHash(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/**
 * A `Set-Cookie` value. HttpOnly (no script reads it), SameSite=Lax: sent on the provider's redirect back (a
 * top-level GET from another site), never on another site's POST or fetch; Strict would lose the session on
 * every link into the console. Max-Age 0 deletes.
 */
export function serializeCookie(
  name: string,
  value: string,
  maxAgeSeconds: number,
  options: CookieOptions,
): string {
  const parts = [
    `${name}=${value}`,
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
  ];
  if (options.secure) parts.push('Secure');
  parts.push('SameSite=Lax');
  return parts.join('; ');
}

/** The value of cookie `name` in a Cookie header, when it has the shape of a secret (anything else is ignored). */
export function readCookie(header: string | string[] | undefined, name: string): string | null {
  const text = Array.isArray(header) ? header.join('; ') : header;
  if (!text) return null;
  for (const part of text.split(';')) {
    const equals = part.indexOf('=');
    if (equals < 0 || part.slice(0, equals).trim() !== name) continue;
    const value = part.slice(equals + 1).trim();
    return SECRET_SHAPE.test(value) ? value : null;
  }
  return null;
}

/** The session's CSRF token: HMAC-SHA256 keyed by the session id (the id itself never leaves the cookie). */
export function csrfTokenFor(sessionId: string): string {
  return createHmac('sha256', sessionId).update('gpucp console csrf').digest('base64url');
}

/** Whether the request's header carries the session's token (compared in constant time). */
export function csrfMatches(sessionId: string, header: string | string[] | undefined): boolean {
  const presented = Array.isArray(header) ? header[0] : header;
  if (typeof presented !== 'string' || presented.length === 0) return false;
  const expected = Buffer.from(csrfTokenFor(sessionId));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Methods that change nothing: the only ones a session may send without its CSRF token. */
export function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

/**
 * A sign-in's state, nonce and PKCE verifier, all derived from the secret in its short-lived cookie: nothing of
 * them is stored, and only the browser that started the sign-in can finish it.
 */
export function loginParameters(secret: string): { state: string; nonce: string; codeVerifier: string } {
  const derive = (label: string) => createHmac('sha256', secret).update(label).digest('base64url');
  return { state: derive('state'), nonce: derive('nonce'), codeVerifier: derive('pkce-verifier') };
}
