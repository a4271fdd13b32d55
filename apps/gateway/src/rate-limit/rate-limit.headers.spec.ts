import { describe, expect, it } from '@jest/globals';
import { parseList, serializeList, Token } from 'structured-headers';
import type { WindowState } from './rate-limit-decision.js';
import { rateLimitField, rateLimitPolicyField } from './rate-limit.headers.js';

const windows: WindowState[] = [
  { name: 'minute', quota: 300, windowSeconds: 60, remaining: 299, resetSeconds: 41 },
  { name: 'hour', quota: 6000, windowSeconds: 3600, remaining: 5999, resetSeconds: 2141 },
  { name: 'day', quota: 50000, windowSeconds: 86400, remaining: 0, resetSeconds: 60941 },
];

describe('rate-limit header fields', () => {
  it('serialises RateLimit as a list of string items named after the windows with r and t', () => {
    expect(rateLimitField(windows)).toBe('"minute";r=299;t=41, "hour";r=5999;t=2141, "day";r=0;t=60941');
  });

  it('serialises RateLimit-Policy with q and w', () => {
    expect(rateLimitPolicyField(windows)).toBe(
      '"minute";q=300;w=60, "hour";q=6000;w=3600, "day";q=50000;w=86400',
    );
  });

  it('round-trips through a structured-field parser, with strings rather than tokens', () => {
    const parsed = parseList(rateLimitField(windows));
    expect(parsed.map(([value]) => value as unknown)).toEqual(['minute', 'hour', 'day']);
    expect(parsed.some(([value]) => value instanceof Token)).toBe(false);
    expect(
      parsed.map(([, params]) => ({ r: params.get('r') as unknown, t: params.get('t') as unknown })),
    ).toEqual([
      { r: 299, t: 41 },
      { r: 5999, t: 2141 },
      { r: 0, t: 60941 },
    ]);
  });

  it('writes exactly what the structured-field library writes, whatever the figures', () => {
    const library = (ws: WindowState[]): string =>
      serializeList(
        ws.map((w) => [
          w.name,
          new Map([
            ['r', w.remaining],
            ['t', w.resetSeconds],
          ]),
        ]),
      );
    const cases: WindowState[][] = [
      windows,
      [{ ...windows[0], remaining: 1.5 }],
      [{ ...windows[0], resetSeconds: -3 }],
      [],
    ];
    for (const ws of cases) expect(rateLimitField(ws)).toBe(library(ws));
  });
});
