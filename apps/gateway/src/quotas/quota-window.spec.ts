import { describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode } from '@app/contracts';
import { QUOTA_WINDOW, quotaWindow } from './quota-window.js';

function refusal(raw: unknown): string[] {
  try {
    quotaWindow(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.ValidationFailed);
    return (error as DomainError).toPayload().errors ?? [];
  }
  throw new Error(`${JSON.stringify(raw)} was accepted`);
}

describe('the quota history window (windowSeconds)', () => {
  it('is an hour when absent, and the seconds given from a minute to a week', () => {
    expect(quotaWindow(undefined)).toBe(3600);
    expect(quotaWindow('')).toBe(3600);
    expect(quotaWindow('60')).toBe(60);
    expect(quotaWindow('86400')).toBe(86_400);
    expect(quotaWindow(String(QUOTA_WINDOW.max))).toBe(604_800);
  });

  it('refuses anything else with one error naming windowSeconds and what was sent', () => {
    for (const raw of [
      '59',
      '604801',
      '-60',
      '1.5',
      '1e3',
      'abc',
      '0x10',
      '０',
      ' 60',
      '99999999999',
      ['60', '120'],
    ]) {
      expect(refusal(raw)).toEqual([
        `windowSeconds must be a whole number of seconds from 60 to 604800; got ${JSON.stringify(raw)}`,
      ]);
    }
  });
});
