import { PodStatus, type ObservedStatus, type PodAction, type PublishedPodAction } from '@app/contracts';

/**
 * The pod status machine: the one place that says what each status allows. docs/pods.md carries the same
 * table; pod-status-machine.spec.ts checks every cell.
 *
 * User actions (409 with the allowed actions when refused):
 *
 * | status       | start        | stop         | reset        | terminate    |
 * |--------------|--------------|--------------|--------------|--------------|
 * | PROVISIONING | no-op        | → EXITED     | refused      | → TERMINATED |
 * | STARTING     | no-op        | → EXITED     | refused      | → TERMINATED |
 * | RUNNING      | no-op        | → EXITED     | → STARTING   | → TERMINATED |
 * | EXITED       | → STARTING   | no-op        | → STARTING   | → TERMINATED |
 * | ERROR        | → STARTING   | refused      | → STARTING   | → TERMINATED |
 * | TERMINATED   | refused      | refused      | refused      | no-op        |
 *
 * A no-op answers 200 with the pod unchanged (the action's result already holds), so repeating an action is safe.
 */
const ACTIONS: Record<PodStatus, Record<PodAction, Decision>> = {
  [PodStatus.Provisioning]: {
    start: { kind: 'noop' },
    stop: { kind: 'transition', to: PodStatus.Exited },
    reset: { kind: 'refused' },
    terminate: { kind: 'transition', to: PodStatus.Terminated },
  },
  [PodStatus.Starting]: {
    start: { kind: 'noop' },
    stop: { kind: 'transition', to: PodStatus.Exited },
    reset: { kind: 'refused' },
    terminate: { kind: 'transition', to: PodStatus.Terminated },
  },
  [PodStatus.Running]: {
    start: { kind: 'noop' },
    stop: { kind: 'transition', to: PodStatus.Exited },
    reset: { kind: 'transition', to: PodStatus.Starting },
    terminate: { kind: 'transition', to: PodStatus.Terminated },
  },
  [PodStatus.Exited]: {
    start: { kind: 'transition', to: PodStatus.Starting },
    stop: { kind: 'noop' },
    reset: { kind: 'transition', to: PodStatus.Starting },
    terminate: { kind: 'transition', to: PodStatus.Terminated },
  },
  [PodStatus.Error]: {
    start: { kind: 'transition', to: PodStatus.Starting },
    stop: { kind: 'refused' },
    reset: { kind: 'transition', to: PodStatus.Starting },
    terminate: { kind: 'transition', to: PodStatus.Terminated },
  },
  [PodStatus.Terminated]: {
    start: { kind: 'refused' },
    stop: { kind: 'refused' },
    reset: { kind: 'refused' },
    terminate: { kind: 'noop' },
  },
};

export type Decision = { kind: 'transition'; to: PodStatus } | { kind: 'noop' } | { kind: 'refused' };

const ACTION_ORDER: readonly PodAction[] = ['start', 'stop', 'reset', 'terminate'];

/** What `action` does to a pod in `status`. */
export function decide(status: PodStatus, action: PodAction): Decision {
  return ACTIONS[status][action];
}

/**
 * The actions that change a pod in `status` (what users are told they may do; no-ops are not listed). A cluster
 * member is never terminated on its own (memberGuard), so it is not told it may be.
 */
export function allowedActions(status: PodStatus, clusterMember = false): PodAction[] {
  return ACTION_ORDER.filter(
    (action) => ACTIONS[status][action].kind === 'transition' && !(clusterMember && action === 'terminate'),
  );
}

/**
 * The one rule for a cluster member's own actions, whichever surface asks (/v1, /v2, GraphQL): it is stopped,
 * started and reset like any pod, but terminated only with its cluster, which otherwise would count a member it no
 * longer has. Null when the action may go on to the status machine; the 409 message otherwise. A member already
 * TERMINATED (its cluster deleted) is left to the table, where terminate is a no-op.
 */
export function memberRefusal(
  podId: string,
  status: PodStatus,
  clusterId: string | null,
  action: PodAction,
): string | null {
  if (!clusterId || action !== 'terminate' || status === PodStatus.Terminated) return null;
  return `cannot terminate pod ${podId}: it is a member of cluster ${clusterId}; delete the cluster instead`;
}

/**
 * What the management API v2 publishes in a pod's `actions` and accepts at `POST /v2/pods/{id}/action`: RunPod's
 * documented set, narrower than the table above (no no-ops, restart only of a RUNNING pod). Every entry is a
 * transition of the table (pod-status-machine.spec.ts checks it). A cluster member is never terminated on its
 * own: deleting its cluster does that.
 */
const PUBLISHED: Record<PodStatus, PublishedPodAction[]> = {
  [PodStatus.Provisioning]: ['stop', 'terminate'],
  [PodStatus.Starting]: ['stop', 'terminate'],
  [PodStatus.Running]: ['stop', 'restart', 'terminate'],
  [PodStatus.Exited]: ['start', 'terminate'],
  [PodStatus.Error]: ['start', 'terminate'],
  [PodStatus.Terminated]: [],
};

/** RunPod's v2 name of one of our actions. */
export function publishedName(action: PodAction): PublishedPodAction {
  return action === 'reset' ? 'restart' : action;
}

/** v2's `actions`: RunPod's set for the status, less what allowedActions leaves out for a member. */
export function publishedActions(status: PodStatus, clusterMember: boolean): PublishedPodAction[] {
  const allowed = allowedActions(status, clusterMember).map(publishedName);
  return PUBLISHED[status].filter((action) => allowed.includes(action));
}

/** The v2 409 message: why the action is not among the pod's published ones. */
export function publishedRefusalMessage(
  podId: string,
  status: PodStatus,
  clusterId: string | null,
  action: PodAction,
): string {
  const name = publishedName(action);
  const member = memberRefusal(podId, status, clusterId, action);
  if (member) return member;
  const allowed = publishedActions(status, clusterId !== null);
  return (
    `cannot ${name} pod ${podId}: it is ${status}; ` +
    (allowed.length ? `allowed actions: ${allowed.join(', ')}` : 'no action is allowed any more')
  );
}

/**
 * Runtime observations (`pod.cmd.observe`, reported by the driver about the pod's current run): the driver only
 * reports, this decides. A pod the user stopped or terminated, or that already failed, ignores late reports.
 *
 * | status       | STARTING   | RUNNING   | EXITED   | ERROR   |
 * |--------------|------------|-----------|----------|---------|
 * | PROVISIONING | → STARTING | → RUNNING | → EXITED | → ERROR |
 * | STARTING     | ignored    | → RUNNING | → EXITED | → ERROR |
 * | RUNNING      | ignored    | ignored   | → EXITED | → ERROR |
 * | EXITED       | ignored    | ignored   | ignored  | ignored |
 * | ERROR        | ignored    | ignored   | ignored  | ignored |
 * | TERMINATED   | ignored    | ignored   | ignored  | ignored |
 */
export function observe(status: PodStatus, observed: ObservedStatus): PodStatus | null {
  switch (status) {
    case PodStatus.Provisioning:
      return observed;
    case PodStatus.Starting:
      return observed === PodStatus.Starting ? null : observed;
    case PodStatus.Running:
      return observed === PodStatus.Exited || observed === PodStatus.Error ? observed : null;
    case PodStatus.Exited:
    case PodStatus.Error:
    case PodStatus.Terminated:
      return null;
  }
}

/** Statuses in which the pod's container should exist and run (the driver keeps it going). */
export function isLive(status: PodStatus): boolean {
  return status === PodStatus.Provisioning || status === PodStatus.Starting || status === PodStatus.Running;
}

/** The 409 message naming the status and what it allows. */
export function refusalMessage(
  podId: string,
  status: PodStatus,
  action: PodAction,
  clusterMember = false,
): string {
  const allowed = allowedActions(status, clusterMember);
  return (
    `cannot ${action} pod ${podId}: it is ${status}; ` +
    (allowed.length ? `allowed actions: ${allowed.join(', ')}` : 'no action is allowed any more')
  );
}
