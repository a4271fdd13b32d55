import { describe, expect, it } from '@jest/globals';
import { POD_ACTIONS, POD_STATUSES, PodStatus, type ObservedStatus, type PodAction } from '@app/contracts';
import {
  allowedActions,
  decide,
  isLive,
  memberRefusal,
  observe,
  publishedActions,
  publishedRefusalMessage,
  refusalMessage,
  type Decision,
} from './pod-status-machine.js';

const { Provisioning, Starting, Running, Exited, Error: Err, Terminated } = PodStatus;
const T = (to: PodStatus): Decision => ({ kind: 'transition', to });
const NOOP: Decision = { kind: 'noop' };
const NO: Decision = { kind: 'refused' };

/** The table of docs/pods.md, cell by cell. */
const ACTIONS: Record<PodStatus, Record<PodAction, Decision>> = {
  PROVISIONING: { start: NOOP, stop: T(Exited), reset: NO, terminate: T(Terminated) },
  STARTING: { start: NOOP, stop: T(Exited), reset: NO, terminate: T(Terminated) },
  RUNNING: { start: NOOP, stop: T(Exited), reset: T(Starting), terminate: T(Terminated) },
  EXITED: { start: T(Starting), stop: NOOP, reset: T(Starting), terminate: T(Terminated) },
  ERROR: { start: T(Starting), stop: NO, reset: T(Starting), terminate: T(Terminated) },
  TERMINATED: { start: NO, stop: NO, reset: NO, terminate: NOOP },
};

const OBSERVED: ObservedStatus[] = [Starting, Running, Exited, Err];
const OBSERVATIONS: Record<PodStatus, Record<ObservedStatus, PodStatus | null>> = {
  PROVISIONING: { STARTING: Starting, RUNNING: Running, EXITED: Exited, ERROR: Err },
  STARTING: { STARTING: null, RUNNING: Running, EXITED: Exited, ERROR: Err },
  RUNNING: { STARTING: null, RUNNING: null, EXITED: Exited, ERROR: Err },
  EXITED: { STARTING: null, RUNNING: null, EXITED: null, ERROR: null },
  ERROR: { STARTING: null, RUNNING: null, EXITED: null, ERROR: null },
  TERMINATED: { STARTING: null, RUNNING: null, EXITED: null, ERROR: null },
};

describe('pod status machine', () => {
  const cells = POD_STATUSES.flatMap((status) => POD_ACTIONS.map((action) => [status, action] as const));

  it.each(cells)('%s + %s', (status, action) => {
    expect(decide(status, action)).toEqual(ACTIONS[status][action]);
  });

  it.each(POD_STATUSES.flatMap((s) => OBSERVED.map((o) => [s, o] as const)))(
    '%s observes %s',
    (status, seen) => {
      expect(observe(status, seen)).toBe(OBSERVATIONS[status][seen]);
    },
  );

  it('lists as allowed exactly the actions that change the pod (the compatibility list)', () => {
    expect(allowedActions(Running)).toEqual(['stop', 'reset', 'terminate']);
    expect(allowedActions(Exited)).toEqual(['start', 'reset', 'terminate']);
    expect(allowedActions(Err)).toEqual(['start', 'reset', 'terminate']);
    expect(allowedActions(Provisioning)).toEqual(['stop', 'terminate']);
    expect(allowedActions(Starting)).toEqual(['stop', 'terminate']);
    expect(allowedActions(Terminated)).toEqual([]);
  });

  it('terminates from every status and never leaves TERMINATED', () => {
    for (const status of POD_STATUSES) {
      expect(decide(status, 'terminate')).toEqual(status === Terminated ? NOOP : T(Terminated));
      if (status !== Terminated) expect(allowedActions(status)).toContain('terminate');
    }
    for (const action of POD_ACTIONS) expect(decide(Terminated, action).kind).not.toBe('transition');
  });

  it('names the status and the allowed actions when it refuses', () => {
    expect(refusalMessage('p1', Err, 'stop')).toBe(
      'cannot stop pod p1: it is ERROR; allowed actions: start, reset, terminate',
    );
    expect(refusalMessage('p1', Terminated, 'start')).toBe(
      'cannot start pod p1: it is TERMINATED; no action is allowed any more',
    );
  });

  it('publishes the v2 actions of RunPod, each a transition of the table, never terminate for a member', () => {
    expect(publishedActions(Running, false)).toEqual(['stop', 'restart', 'terminate']);
    expect(publishedActions(Exited, false)).toEqual(['start', 'terminate']);
    expect(publishedActions(Err, false)).toEqual(['start', 'terminate']);
    expect(publishedActions(Provisioning, false)).toEqual(['stop', 'terminate']);
    expect(publishedActions(Starting, false)).toEqual(['stop', 'terminate']);
    expect(publishedActions(Terminated, false)).toEqual([]);
    expect(publishedActions(Running, true)).toEqual(['stop', 'restart']);
    for (const status of POD_STATUSES) {
      for (const action of publishedActions(status, false)) {
        expect(decide(status, action === 'restart' ? 'reset' : action).kind).toBe('transition');
      }
    }
  });

  it("names the v2 refusal in RunPod's words, and sends a member to its cluster", () => {
    expect(publishedRefusalMessage('p1', Exited, null, 'reset')).toBe(
      'cannot restart pod p1: it is EXITED; allowed actions: start, terminate',
    );
    expect(publishedRefusalMessage('p1', Running, 'c1', 'terminate')).toBe(
      'cannot terminate pod p1: it is a member of cluster c1; delete the cluster instead',
    );
  });

  it("gives a member one rule on every surface: no terminate of its own, in /v1's list as in v2's", () => {
    for (const status of POD_STATUSES) {
      expect(allowedActions(status, true)).not.toContain('terminate');
      expect(allowedActions(status, true)).toEqual(allowedActions(status).filter((a) => a !== 'terminate'));
      const published = publishedActions(status, true).map((a) => (a === 'restart' ? 'reset' : a));
      for (const action of published) expect(allowedActions(status, true)).toContain(action);
    }
    const refusal = 'cannot terminate pod p1: it is a member of cluster c1; delete the cluster instead';
    expect(memberRefusal('p1', Running, 'c1', 'terminate')).toBe(refusal);
    expect(memberRefusal('p1', Exited, 'c1', 'terminate')).toBe(refusal);
    expect(memberRefusal('p1', Terminated, 'c1', 'terminate')).toBeNull();
    expect(memberRefusal('p1', Running, 'c1', 'reset')).toBeNull();
    expect(memberRefusal('p1', Running, null, 'terminate')).toBeNull();
    expect(refusalMessage('p1', Err, 'stop', true)).toBe(
      'cannot stop pod p1: it is ERROR; allowed actions: start, reset',
    );
  });

  it('knows which statuses have a container', () => {
    expect(POD_STATUSES.filter(isLive)).toEqual([Provisioning, Starting, Running]);
  });
});
