import {
  Subjects,
  type CommandPayload,
  type FleetActor,
  type HealthCode,
  type HealthSource,
  type HostView,
  type SchedulingState,
} from '@app/contracts';
import type { NodeHost } from './kubernetes-node.js';

/** What the fleet holds of a host, as far as the node watch compares: from the scheduler's view, then its own commands. */
export interface AppliedHost {
  dataCenterId: string;
  gpuTypeId: string | null;
  gpuCount: number;
  publicIp: string;
  scheduling: SchedulingState;
  by: FleetActor | 'file';
  health: { healthy: boolean; code: HealthCode | null; source: HealthSource | null };
}

export function appliedFromView(view: HostView): AppliedHost {
  return {
    dataCenterId: view.dataCenterId,
    gpuTypeId: view.gpuTypeId,
    gpuCount: view.gpuCount,
    publicIp: view.publicIp,
    scheduling: view.scheduling.state,
    by: view.scheduling.by,
    health: { healthy: view.health.healthy, code: view.health.code, source: view.health.source },
  };
}

type FleetSubject =
  | typeof Subjects.fleet.register
  | typeof Subjects.fleet.cordon
  | typeof Subjects.fleet.uncordon
  | typeof Subjects.fleet.reportHealth
  | typeof Subjects.fleet.remove;

/** One command of the node watch; `part` names it in the derived command id. */
export type NodeStep = {
  [S in FleetSubject]: { part: string; subject: S; payload: CommandPayload<S> };
}[FleetSubject];

/**
 * The commands that bring the host in line with its node, only those that differ: register (new, GONE, or its
 * data center, GPUs or address changed), cordon (node unschedulable, host READY), uncordon (schedulable again and
 * the cordon was Kubernetes'; an operator's cordon or drain is never lifted here), and report-health (unhealthy, or
 * healthy again when the unhealthy report was the runtime's: an operator's or the start failures' stays).
 */
export function planNode(desired: NodeHost, applied: AppliedHost | undefined): NodeStep[] {
  const steps: NodeStep[] = [];
  const gone = !applied || applied.scheduling === 'GONE';
  if (
    gone ||
    applied.dataCenterId !== desired.dataCenterId ||
    applied.gpuTypeId !== desired.gpuTypeId ||
    applied.gpuCount !== desired.gpuCount ||
    applied.publicIp !== desired.publicIp
  ) {
    steps.push({
      part: 'register',
      subject: Subjects.fleet.register,
      payload: {
        id: desired.id,
        dataCenterId: desired.dataCenterId,
        gpuTypeId: desired.gpuTypeId,
        gpuCount: desired.gpuCount,
        publicIp: desired.publicIp,
        source: 'kubernetes',
      },
    });
  }
  const scheduling = gone ? 'READY' : applied.scheduling;
  if (desired.cordoned && scheduling === 'READY') {
    steps.push({
      part: 'cordon',
      subject: Subjects.fleet.cordon,
      payload: {
        hostId: desired.id,
        by: 'kubernetes',
        reason: `node ${desired.id} is cordoned (spec.unschedulable)`,
      },
    });
  }
  if (!desired.cordoned && !gone && scheduling === 'CORDONED' && applied.by === 'kubernetes') {
    steps.push({
      part: 'uncordon',
      subject: Subjects.fleet.uncordon,
      payload: { hostId: desired.id, by: 'kubernetes' },
    });
  }
  const current = applied?.health ?? { healthy: true, code: null, source: null };
  const health = desired.health;
  if (
    !health.healthy &&
    (current.healthy || (current.source === 'runtime' && current.code !== health.code))
  ) {
    steps.push({
      part: 'health',
      subject: Subjects.fleet.reportHealth,
      payload: {
        hostId: desired.id,
        healthy: false,
        source: 'runtime',
        code: health.code,
        reason: health.reason,
        ...(health.gpuIndex !== undefined ? { gpuIndex: health.gpuIndex } : {}),
      },
    });
  }
  if (health.healthy && !current.healthy && current.source === 'runtime') {
    steps.push({
      part: 'health',
      subject: Subjects.fleet.reportHealth,
      payload: { hostId: desired.id, healthy: true, source: 'runtime' },
    });
  }
  return steps;
}

/** A deleted node's host goes GONE (unless it is already). */
export function planRemoval(hostId: string, applied: AppliedHost | undefined): NodeStep[] {
  if (!applied || applied.scheduling === 'GONE') return [];
  return [{ part: 'remove', subject: Subjects.fleet.remove, payload: { hostId, by: 'kubernetes' } }];
}

/** The host as the fleet holds it once `step` was applied. */
export function afterStep(applied: AppliedHost | undefined, step: NodeStep): AppliedHost {
  const base: AppliedHost = applied ?? {
    dataCenterId: '',
    gpuTypeId: null,
    gpuCount: 0,
    publicIp: '',
    scheduling: 'READY',
    by: 'kubernetes',
    health: { healthy: true, code: null, source: null },
  };
  switch (step.subject) {
    case Subjects.fleet.register: {
      const { dataCenterId, gpuTypeId, gpuCount, publicIp } = step.payload;
      const back = base.scheduling === 'GONE';
      return {
        ...base,
        dataCenterId,
        gpuTypeId: gpuTypeId ?? null,
        gpuCount,
        publicIp,
        ...(back || !applied ? { scheduling: 'READY' as const, by: 'kubernetes' as const } : {}),
      };
    }
    case Subjects.fleet.cordon:
      return { ...base, scheduling: 'CORDONED', by: 'kubernetes' };
    case Subjects.fleet.uncordon:
      return { ...base, scheduling: 'READY', by: 'kubernetes' };
    case Subjects.fleet.remove:
      return { ...base, scheduling: 'GONE', by: 'kubernetes' };
    case Subjects.fleet.reportHealth: {
      const { healthy, code, source } = step.payload;
      return {
        ...base,
        health: { healthy, code: healthy ? null : (code ?? null), source: healthy ? null : source },
      };
    }
  }
}
