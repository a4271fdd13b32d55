import { describe, expect, it } from '@jest/globals';
import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-errors.js';

function pgError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code ? { code } : {});
}

describe('isDatabaseUnavailable', () => {
  it.each([
    ['connection refused', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['connection dropped mid-query', pgError('Connection terminated unexpectedly')],
    ['pool could not connect in time', pgError('timeout exceeded when trying to connect')],
    ['immediate shutdown', pgError('terminating connection due to immediate shutdown command', '57P01')],
    ['server starting up', pgError('the database system is starting up', '57P03')],
    ['too many connections', pgError('sorry, too many clients already', '53300')],
    [
      "TypeORM's wrapper",
      new QueryFailedError(
        'SELECT 1',
        [],
        pgError('terminating connection due to administrator command', '57P01'),
      ),
    ],
    [
      'an AggregateError of connect attempts',
      Object.assign(new AggregateError([pgError('x', 'ECONNREFUSED')]), {}),
    ],
  ])('%s: unavailable', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', pgError('duplicate key value violates unique constraint', '23505')],
    [
      'a syntax error',
      new QueryFailedError('SELEC 1', [], pgError('syntax error at or near "SELEC"', '42601')),
    ],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('%s: not unavailable', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
