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
  // Once per request, so the library serialises only the names (once each); the figures are appended as they are
  // whenever both are sf-integers, which is what the limiter produces. Anything else goes through the library.
  let field = '';
  for (const w of windows) {
    if (!isSfInteger(w.remaining) || !isSfInteger(w.resetSeconds)) return serializeRateLimit(windows);
    field += `${field ? ', ' : ''}${sfString(w.name)};r=${w.remaining};t=${w.resetSeconds}`;
  }
  return field;
}

function serializeRateLimit(windows: readonly WindowState[]): string {
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

/** RFC 8941 §3.3.1: at most 15 digits. */
function isSfInteger(value: number): boolean {
  return Number.isInteger(value) && Math.abs(value) <= 999_999_999_999_999;
}

const sfStrings = new Map<string, string>();

/** A window's name as an sf-string, serialised by the library once per name (names come from the policies). */
function sfString(name: string): string {
  let serialised = sfStrings.get(name);
  if (serialised === undefined) {
    if (sfStrings.size >= MAX_POLICY_FIELDS) sfStrings.clear();
    serialised = serializeList([[name, new Map()]]);
    sfStrings.set(name, serialised);
  }
  return serialised;
}

/** Serialised policies by their figures: few distinct ones (the defaults, the overrides), one per request. */
const policyFields = new Map<string, string>();
const MAX_POLICY_FIELDS = 1000;

/** `RateLimit-Policy`: `q` quota and `w` window length in seconds, per window. */
export function rateLimitPolicyField(windows: readonly WindowState[]): string {
  // A loop rather than map/join: this runs on every counted request.
  let key = '';
  for (const w of windows) key += `${w.name}:${w.quota}:${w.windowSeconds},`;
  let field = policyFields.get(key);
  if (field === undefined) {
    if (policyFields.size >= MAX_POLICY_FIELDS) policyFields.clear();
    field = serializePolicy(windows);
    policyFields.set(key, field);
  }
  return field;
}

function serializePolicy(windows: readonly WindowState[]): string {
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
