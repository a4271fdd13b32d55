/** The interface's pod statuses, exactly. */
export const PodStatus = {
  Provisioning: 'PROVISIONING',
  Starting: 'STARTING',
  Running: 'RUNNING',
  Exited: 'EXITED',
  Error: 'ERROR',
  Terminated: 'TERMINATED',
} as const;
export type PodStatus = (typeof PodStatus)[keyof typeof PodStatus];
export const POD_STATUSES: readonly PodStatus[] = Object.values(PodStatus);
