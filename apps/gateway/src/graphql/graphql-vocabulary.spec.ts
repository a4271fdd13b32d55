import { describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode } from '@app/contracts';
import { inArgumentNames, POD_DEPLOY_ARGUMENTS, renameField } from './graphql-vocabulary.js';

describe('GraphQL argument names in errors', () => {
  it('renames the leading field of an entry, dropping a list index', () => {
    expect(
      renameField('dataCenterIds.0 must be a data center id; "XX" is not one', POD_DEPLOY_ARGUMENTS),
    ).toBe('dataCenterId must be a data center id; "XX" is not one');
    expect(renameField('cpuTypeId must be a CPU type id', POD_DEPLOY_ARGUMENTS)).toBe(
      'instanceId must be a CPU type id',
    );
    expect(renameField('gpuCount must not be greater than 8', POD_DEPLOY_ARGUMENTS)).toBe(
      'gpuCount must not be greater than 8',
    );
    expect(renameField('cpuTypeIds are fine', POD_DEPLOY_ARGUMENTS)).toBe('cpuTypeIds are fine');
  });

  it('rethrows a DomainError with its entries renamed, and anything else as it is', async () => {
    const refused = new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
      'dataCenterIds.1 must be a data center id',
    ]);
    await expect(inArgumentNames(POD_DEPLOY_ARGUMENTS, () => Promise.reject(refused))).rejects.toMatchObject({
      code: ErrorCode.ValidationFailed,
      message: 'the request failed validation',
      errors: ['dataCenterId must be a data center id'],
    });
    const bug = new Error('boom');
    await expect(inArgumentNames(POD_DEPLOY_ARGUMENTS, () => Promise.reject(bug))).rejects.toBe(bug);
  });
});
