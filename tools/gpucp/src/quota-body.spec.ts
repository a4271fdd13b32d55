import { describe, expect, it } from '@jest/globals';
import { ApiError } from './api-client.js';
import { quotaBody } from './quota-body.js';

const noFile = (path: string): string => {
  throw new Error(`ENOENT: no such file, open '${path}'`);
};

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(2);
    return (error as ApiError).message;
  }
  throw new Error('expected a usage error');
}

describe("gpucp quota set's body", () => {
  it('is one limit from the flags, every data center and unlimited borrowing unless given', () => {
    expect(quotaBody({ gpuType: 'NVIDIA A100 80GB', gpus: 8 }, noFile)).toEqual({
      cohort: null,
      limits: [{ gpuTypeId: 'NVIDIA A100 80GB', dataCenterId: null, gpus: 8, borrowingLimit: null }],
    });
    expect(
      quotaBody(
        { gpuType: 'NVIDIA A100 80GB', gpus: 8, dataCenter: 'EU-RO-1', borrowingLimit: 0, cohort: 'ml' },
        noFile,
      ),
    ).toEqual({
      cohort: 'ml',
      limits: [{ gpuTypeId: 'NVIDIA A100 80GB', dataCenterId: 'EU-RO-1', gpus: 8, borrowingLimit: 0 }],
    });
  });

  it('is the JSON object of --file as it is (the API checks it)', () => {
    const quota = {
      cohort: 'ml',
      limits: [
        { gpuTypeId: 'a', gpus: 1 },
        { gpuTypeId: 'b', gpus: 2 },
      ],
    };
    expect(quotaBody({ file: 'q.json' }, (path) => (path === 'q.json' ? JSON.stringify(quota) : ''))).toEqual(
      quota,
    );
  });

  it('refuses as a usage error: missing flags, flags with --file, an unreadable or non-object file', () => {
    expect(usageError(() => quotaBody({ gpuType: 'a' }, noFile))).toMatch(/--gpu-type and --gpus/);
    expect(usageError(() => quotaBody({ gpus: 1 }, noFile))).toMatch(/--gpu-type and --gpus/);
    expect(usageError(() => quotaBody({ file: 'q.json', cohort: 'ml' }, () => '{}'))).toMatch(
      /--file gives the whole quota/,
    );
    expect(usageError(() => quotaBody({ file: 'gone.json' }, noFile))).toMatch(
      /cannot read the quota in gone.json: ENOENT/,
    );
    expect(usageError(() => quotaBody({ file: 'q.json' }, () => '{"limits": ['))).toMatch(/cannot read/);
    expect(usageError(() => quotaBody({ file: 'q.json' }, () => '[]'))).toMatch(/must hold a JSON object/);
  });
});
