import { describe, expect, it } from '@jest/globals';
import {
  csrfMatches,
  csrfTokenFor,
  isSafeMethod,
  loginCookieName,
  loginParameters,
  newSecret,
  readCookie,
  secretHash,
  serializeCookie,
  sessionCookieName,
} from './session-cookies.js';

describe('session cookies', () => {
  it('are __Host- prefixed, Secure, HttpOnly, SameSite=Lax, Path=/ and without Domain by default', () => {
    const secure = { secure: true };
    expect(sessionCookieName(secure)).toBe('__Host-gpucp_session');
    expect(loginCookieName(secure)).toBe('__Host-gpucp_sso_login');
    const cookie = serializeCookie(sessionCookieName(secure), 'v', 3600, secure);
    expect(cookie).toBe('__Host-gpucp_session=v; Path=/; Max-Age=3600; HttpOnly; Secure; SameSite=Lax');
    expect(cookie).not.toMatch(/Domain/i);
  });

  it('on plain http (SSO_COOKIE_SECURE=false) drop Secure and with it the prefix, keeping HttpOnly and SameSite', () => {
    const plain = { secure: false };
    expect(sessionCookieName(plain)).toBe('gpucp_session');
    expect(serializeCookie('gpucp_session', 'v', 10, plain)).toBe(
      'gpucp_session=v; Path=/; Max-Age=10; HttpOnly; SameSite=Lax',
    );
  });

  it('delete with Max-Age=0', () => {
    expect(serializeCookie('c', '', -5, { secure: true })).toContain('Max-Age=0;');
  });

  it('read only a value shaped like a secret, from the named cookie', () => {
    const id = newSecret();
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(readCookie(`a=b; __Host-gpucp_session=${id}; c=d`, '__Host-gpucp_session')).toBe(id);
    expect(readCookie(`gpucp_session=${id}`, '__Host-gpucp_session')).toBeNull();
    expect(readCookie('__Host-gpucp_session=short', '__Host-gpucp_session')).toBeNull();
    expect(readCookie(undefined, 'x')).toBeNull();
    expect(readCookie([`x=${id}`], 'x')).toBe(id);
  });

  it('the stored hash is the SHA-256, never the id', () => {
    const id = newSecret();
    expect(secretHash(id)).toMatch(/^[0-9a-f]{64}$/);
    expect(secretHash(id)).not.toContain(id);
  });
});

describe('CSRF', () => {
  const id = newSecret();

  it('a token is bound to its session and is neither the id nor its stored hash', () => {
    expect(csrfTokenFor(id)).toBe(csrfTokenFor(id));
    expect(csrfTokenFor(id)).not.toBe(csrfTokenFor(newSecret()));
    expect(csrfTokenFor(id)).not.toBe(id);
    expect(csrfTokenFor(id)).not.toBe(secretHash(id));
  });

  it('matches only the session own token', () => {
    expect(csrfMatches(id, csrfTokenFor(id))).toBe(true);
    expect(csrfMatches(id, [csrfTokenFor(id)])).toBe(true);
    expect(csrfMatches(id, undefined)).toBe(false);
    expect(csrfMatches(id, '')).toBe(false);
    expect(csrfMatches(id, csrfTokenFor(newSecret()))).toBe(false);
    expect(csrfMatches(id, csrfTokenFor(id).slice(1))).toBe(false);
  });

  it('GET, HEAD and OPTIONS are the only methods that need no token', () => {
    expect(['GET', 'HEAD', 'OPTIONS'].every(isSafeMethod)).toBe(true);
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].some(isSafeMethod)).toBe(false);
  });
});

describe('sign-in parameters', () => {
  it('derive state, nonce and a PKCE verifier (43 unreserved characters) from the login secret', () => {
    const secret = newSecret();
    const p = loginParameters(secret);
    expect(loginParameters(secret)).toEqual(p);
    expect(new Set([p.state, p.nonce, p.codeVerifier]).size).toBe(3);
    expect(p.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(loginParameters(newSecret()).state).not.toBe(p.state);
  });
});
