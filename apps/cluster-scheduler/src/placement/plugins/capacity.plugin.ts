import { podsFitting, type HostFilter } from '../placement.js';

/** The host has the requested GPU type (or CPU type for CPU pods) and room for at least one pod, ports included. */
export const capacityFilter: HostFilter = {
  name: 'capacity',
  accepts(host, request) {
    if (request.gpuTypeId !== null) {
      if (host.gpuTypeId !== request.gpuTypeId) return false;
    } else if (request.cpuTypeId !== null && host.cpuTypeId !== request.cpuTypeId) {
      return false;
    }
    return podsFitting(host, request) >= 1;
  },
};
