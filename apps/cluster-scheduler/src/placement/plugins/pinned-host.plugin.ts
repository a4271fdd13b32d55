import type { HostFilter } from '../placement.js';

/** Resuming a stopped pod: only the host its data is on. */
export const pinnedHostFilter: HostFilter = {
  name: 'pinned-host',
  accepts: (host, request) => request.hostId === null || host.id === request.hostId,
};
