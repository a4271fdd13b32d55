import { serializeList } from 'structured-headers';
import type { WindowState } from './rate-limit-decision.js';

/**
 * The RateLimit and RateLimit-Policy fields of draft-ietf-httpapi-ratelimit-headers (-08 and later), as the
 * interface asks: a Structured Field List with one member per window, whose value is the policy name as an
 * sf-string (the draft: "The Item value MUST be a String"), hence `"minute"`, not the token `minute`.
 *
 *   RateLimit: "minute";r=299;t=41, "hour";r=5999;t=2141, "day";r=49999;t=60941
 *   RateLimit-Policy: "minute";q=300;w=60, "hour";q=6000;w=3600, "day";q=50000;w=86400
 */
export const RATE_LIMIT_HEADER = 'RateLimit';
export const RATE_LIMIT_POLICY_HEADER = 'RateLimit-Policy';
export const RETRY_AFTER_HEADER = 'Retry-After';

/** `RateLimit`: `r` remaining requests and `t` seconds to reset, per window. */
export function rateLimitField(windows: readonly WindowState[]): string {
  return serializeList(
    windows.map((w) => [
      w.name,
      new Map([
        ['r', w.remaining],
        ['t', w.resetSeconds],
      ]),
    ]),
  );
}

/** `RateLimit-Policy`: `q` quota and `w` window length in seconds, per window. */
export function rateLimitPolicyField(windows: readonly WindowState[]): string {
  return serializeList(
    windows.map((w) => [
      w.name,
      new Map([
        ['q', w.quota],
        ['w', w.windowSeconds],
      ]),
    ]),
  );
}
