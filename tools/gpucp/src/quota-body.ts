import type { QuotaInput } from '@app/contracts';
import { ApiError } from './api-client.js';

/** The flags of `gpucp quota set` and `gpucp quota default set`. */
export interface QuotaSetOptions {
  file?: string;
  gpuType?: string;
  gpus?: number;
  dataCenter?: string;
  borrowingLimit?: number;
  cohort?: string;
}

function usage(message: string): ApiError {
  return new ApiError(message, 2);
}

/**
 * The body of `PUT …/quota` (QuotaInput): a JSON file (`--file`, the body as the API takes it, for several limits),
 * or one limit from the flags. The two do not mix; the API checks the values and names a bad one.
 */
export function quotaBody(options: QuotaSetOptions, readFile: (path: string) => string): QuotaInput {
  const flags = [options.gpuType, options.gpus, options.dataCenter, options.borrowingLimit, options.cohort];
  if (options.file !== undefined) {
    if (flags.some((flag) => flag !== undefined)) {
      throw usage(
        '--file gives the whole quota: leave out --gpu-type, --gpus, --data-center, --borrowing-limit, --cohort',
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFile(options.file));
    } catch (error) {
      throw usage(`cannot read the quota in ${options.file}: ${(error as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw usage(
        `${options.file} must hold a JSON object such as {"cohort": "ml", "limits": [{"gpuTypeId": "…", "gpus": 8}]}`,
      );
    }
    return parsed as QuotaInput;
  }
  if (options.gpuType === undefined || options.gpus === undefined) {
    throw usage('give --gpu-type and --gpus (one limit), or --file with the whole quota');
  }
  return {
    cohort: options.cohort ?? null,
    limits: [
      {
        gpuTypeId: options.gpuType,
        dataCenterId: options.dataCenter ?? null,
        gpus: options.gpus,
        borrowingLimit: options.borrowingLimit ?? null,
      },
    ],
  };
}
