import type { PodStatus } from '@app/contracts';

export const STATUSES: PodStatus[] = ['PROVISIONING', 'STARTING', 'RUNNING', 'EXITED', 'ERROR', 'TERMINATED'];
/** While a pod moves, its page polls fast; a settled pod slowly. */
export const MOVING = new Set<PodStatus>(['PROVISIONING', 'STARTING']);
