import { describe, expect, it } from '@jest/globals';
import { DomainError } from '@app/contracts';
import { metricsWindow } from './metrics-window.js';

describe('metricsWindow', () => {
  it('accepts the four windows and defaults to 1h', () => {
    for (const window of ['5m', '1h', '24h', '7d']) expect(metricsWindow({ window })).toBe(window);
    expect(metricsWindow({})).toBe('1h');
  });

  it('refuses another window or one given twice, naming the choices', () => {
    expect(() => metricsWindow({ window: '2h' })).toThrow(DomainError);
    expect(() => metricsWindow({ window: ['5m', '1h'] })).toThrow(/at most once|validation/);
    expect(() => metricsWindow({ window: '30d' })).toThrow(
      expect.objectContaining({ errors: ['window must be one of 5m, 1h, 24h, 7d; got "30d"'] }),
    );
  });
});
