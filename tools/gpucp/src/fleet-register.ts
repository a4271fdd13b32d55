import type { RegisterHostInput } from '@app/contracts';
import { ApiError } from './api-client.js';

/** The flags of `gpucp fleet register <hostId>`. */
export interface RegisterOptions {
  dc: string;
  gpuType?: string;
  gpus: number;
  cpuType?: string;
  cpuSlots?: number;
  ip: string;
  ports?: string;
}

const PORT_RANGE = /^(\d{1,5})-(\d{1,5})$/;

/**
 * The body of `POST /v2/fleet/hosts` from the flags: only what was given (the scheduler's defaults stand for the
 * rest); `--ports 20000-20999` as the `[first, last]` the API takes. The API checks the values and names a bad one.
 */
export function registerBody(hostId: string, options: RegisterOptions): RegisterHostInput {
  let portRange: [number, number] | undefined;
  if (options.ports !== undefined) {
    const match = PORT_RANGE.exec(options.ports);
    if (!match) throw new ApiError(`--ports takes first-last, e.g. 20000-20999, got "${options.ports}"`, 2);
    portRange = [Number(match[1]), Number(match[2])];
  }
  return {
    id: hostId,
    dataCenterId: options.dc,
    ...(options.gpuType !== undefined ? { gpuTypeId: options.gpuType } : {}),
    gpuCount: options.gpus,
    ...(options.cpuType !== undefined ? { cpuTypeId: options.cpuType } : {}),
    ...(options.cpuSlots !== undefined ? { cpuSlots: options.cpuSlots } : {}),
    publicIp: options.ip,
    ...(portRange ? { portRange } : {}),
  };
}
