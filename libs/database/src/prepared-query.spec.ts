import { describe, expect, it } from '@jest/globals';
import { numberedFrom } from './prepared-query.js';

describe('numberedFrom', () => {
  it('renumbers every parameter from the given one, two-digit ones and repeats included', () => {
    const sql = 'INSERT INTO t (a, b) VALUES ($1, $2) ON CONFLICT (a) DO UPDATE SET b = $2, c = $10';
    expect(numberedFrom(sql, 5)).toBe(
      'INSERT INTO t (a, b) VALUES ($5, $6) ON CONFLICT (a) DO UPDATE SET b = $6, c = $14',
    );
  });

  it('leaves a statement numbered from $1 as it is', () => {
    expect(numberedFrom('SELECT $1::int + $2', 1)).toBe('SELECT $1::int + $2');
  });
});
