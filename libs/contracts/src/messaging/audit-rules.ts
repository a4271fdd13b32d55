import type { AuditResourceType } from '../audit/audit-entry.js';
import type { CommandPayload, CommandResult, CommandSubject } from './contract-map.js';
import { Subjects } from './subjects.js';

/** The keys of T whose values are strings (maybe absent): where an id or a name may be read. */
type StringKeys<T> = T extends object
  ? { [K in keyof T]-?: NonNullable<T[K]> extends string ? K : never }[keyof T] & string
  : never;

/**
 * Where an id is read: a field of the command's payload, or of its recorded result (a create's new id: absent when
 * the command was refused).
 */
export type IdSource<S extends CommandSubject> =
  { payload: StringKeys<CommandPayload<S>> } | { value: StringKeys<CommandResult<S>> };

export interface AuditRule<S extends CommandSubject> {
  /** `<resource>.<verb>`, as filters and the console name it (`pod.create`, `team.add-member`). */
  action: string;
  resourceType: AuditResourceType;
  /** Where the resource's id is, tried in order (none found: the entry has no resource id). */
  resourceId: readonly IdSource<S>[];
  /**
   * Whose trail the entry belongs to, tried in order before the actor's account (`actor.userId`): the team a team
   * command acts on, the user a keys-CLI command acts for, the owner a placement was asked for.
   */
  account?: readonly IdSource<S>[];
  /** Payload fields copied into the entry's `details`: ids, names and roles only, never a secret nor a value. */
  details?: readonly StringKeys<CommandPayload<S>>[];
  /** `refused`: only refused outcomes are worth an entry (a placement: its success is the pod's create). */
  only?: 'refused';
}

/** A subject not audited, and why (the sentence the table is read by). */
export interface NotAudited {
  notAudited: string;
}

const JOB_PATH = 'the job path (data plane, not management): hot, and never audited';

/**
 * Every command subject → its audit rule, or why it has none. Exhaustive and type-checked: a new command subject
 * does not compile until it is listed here, and every field named must exist on its payload or result as a
 * string. Each audited command makes ONE entry, success or refusal (docs/adr/0035-audit-trail.md).
 */
export const AUDIT_RULES: { [S in CommandSubject]: AuditRule<S> | NotAudited } = {
  [Subjects.job.submit]: { notAudited: JOB_PATH },
  [Subjects.job.submitMany]: { notAudited: JOB_PATH },
  [Subjects.job.cancel]: { notAudited: JOB_PATH },
  [Subjects.job.retry]: { notAudited: JOB_PATH },
  [Subjects.job.setTtl]: { notAudited: JOB_PATH },
  [Subjects.job.readStream]: { notAudited: JOB_PATH },
  [Subjects.job.sweep]: {
    notAudited:
      "the broker's timer; the workers it finds lost are audited as worker.lost entries of their own",
  },
  [Subjects.job.recordLbRequests]: {
    notAudited: "a gateway's load-balancing request counts for the metrics: measurements, not management",
  },
  [Subjects.job.purge]: {
    action: 'endpoint.purge-queue',
    resourceType: 'endpoint',
    resourceId: [{ payload: 'endpointId' }],
  },
  [Subjects.job.rotateWebhookSecret]: {
    action: 'endpoint.rotate-webhook-secret',
    resourceType: 'endpoint',
    resourceId: [{ payload: 'endpointId' }],
  },
  [Subjects.worker.take]: { notAudited: JOB_PATH },
  [Subjects.worker.done]: { notAudited: JOB_PATH },
  [Subjects.worker.doneMany]: { notAudited: JOB_PATH },
  [Subjects.worker.stream]: { notAudited: JOB_PATH },
  [Subjects.worker.ping]: { notAudited: JOB_PATH },
  [Subjects.worker.collectStops]: { notAudited: JOB_PATH },
  [Subjects.worker.register]: {
    notAudited: "the autoscaler's bookkeeping of a worker it created; the pod.create before it is audited",
  },
  [Subjects.placement.reserve]: {
    action: 'placement.reserve',
    resourceType: 'pod',
    resourceId: [{ payload: 'podId' }],
    account: [{ payload: 'ownerId' }],
    details: ['gpuTypeId', 'cpuTypeId'],
    only: 'refused',
  },
  [Subjects.quota.set]: {
    action: 'quota.set',
    resourceType: 'quota',
    resourceId: [{ payload: 'accountId' }],
    account: [{ payload: 'accountId' }],
    details: ['cohort'],
  },
  [Subjects.quota.sample]: {
    notAudited: "the scheduler's minute samples of each quota's use: no one's decision",
  },
  [Subjects.fleet.register]: {
    action: 'host.register',
    resourceType: 'host',
    resourceId: [{ payload: 'id' }],
    details: ['dataCenterId', 'gpuTypeId', 'source'],
  },
  [Subjects.fleet.cordon]: {
    action: 'host.cordon',
    resourceType: 'host',
    resourceId: [{ payload: 'hostId' }],
    details: ['by'],
  },
  [Subjects.fleet.uncordon]: {
    action: 'host.uncordon',
    resourceType: 'host',
    resourceId: [{ payload: 'hostId' }],
    details: ['by'],
  },
  [Subjects.fleet.drain]: {
    action: 'host.drain',
    resourceType: 'host',
    resourceId: [{ payload: 'hostId' }],
    details: ['by'],
  },
  [Subjects.fleet.remove]: {
    action: 'host.remove',
    resourceType: 'host',
    resourceId: [{ payload: 'hostId' }],
    details: ['by'],
  },
  [Subjects.fleet.reportHealth]: {
    action: 'host.report-health',
    resourceType: 'host',
    resourceId: [{ payload: 'hostId' }],
    details: ['source', 'code'],
  },
  [Subjects.pod.injectGpuFault]: {
    action: 'host.inject-gpu-fault',
    resourceType: 'host',
    resourceId: [{ payload: 'hostId' }],
    details: ['kind'],
  },
  [Subjects.fleet.expireDrains]: {
    notAudited: "the scheduler's timer at a drain's deadline; the drain itself is audited (host.drain)",
  },
  [Subjects.pod.preempt]: {
    notAudited:
      'the pods of a preemption, whose entry (placement.preempted) the scheduler writes with the placement',
  },
  [Subjects.placement.release]: {
    notAudited: "follows a pod's terminate or a refused create, which are audited",
  },
  [Subjects.cluster.create]: {
    action: 'cluster.create',
    resourceType: 'cluster',
    resourceId: [{ value: 'id' }],
    details: ['name'],
  },
  [Subjects.cluster.delete]: {
    action: 'cluster.delete',
    resourceType: 'cluster',
    resourceId: [{ payload: 'id' }],
  },
  [Subjects.cluster.rename]: {
    action: 'cluster.rename',
    resourceType: 'cluster',
    resourceId: [{ payload: 'id' }],
    details: ['name'],
  },
  [Subjects.volume.create]: {
    action: 'volume.create',
    resourceType: 'volume',
    resourceId: [{ value: 'id' }],
    details: ['name', 'dataCenterId'],
  },
  [Subjects.volume.update]: {
    action: 'volume.update',
    resourceType: 'volume',
    resourceId: [{ payload: 'id' }],
  },
  [Subjects.volume.delete]: {
    action: 'volume.delete',
    resourceType: 'volume',
    resourceId: [{ payload: 'id' }],
  },
  [Subjects.registryAuth.create]: {
    action: 'registry-auth.create',
    resourceType: 'registry-auth',
    resourceId: [{ value: 'id' }],
    details: ['name'],
  },
  [Subjects.registryAuth.update]: {
    action: 'registry-auth.update',
    resourceType: 'registry-auth',
    resourceId: [{ payload: 'id' }],
  },
  [Subjects.registryAuth.delete]: {
    action: 'registry-auth.delete',
    resourceType: 'registry-auth',
    resourceId: [{ payload: 'id' }],
  },
  [Subjects.pod.create]: {
    action: 'pod.create',
    resourceType: 'pod',
    resourceId: [{ value: 'id' }],
    details: ['name', 'templateId'],
  },
  [Subjects.pod.start]: { action: 'pod.start', resourceType: 'pod', resourceId: [{ payload: 'podId' }] },
  [Subjects.pod.stop]: { action: 'pod.stop', resourceType: 'pod', resourceId: [{ payload: 'podId' }] },
  [Subjects.pod.reset]: { action: 'pod.reset', resourceType: 'pod', resourceId: [{ payload: 'podId' }] },
  [Subjects.pod.terminate]: {
    action: 'pod.terminate',
    resourceType: 'pod',
    resourceId: [{ payload: 'podId' }],
  },
  [Subjects.pod.update]: { action: 'pod.update', resourceType: 'pod', resourceId: [{ payload: 'podId' }] },
  [Subjects.pod.observe]: {
    notAudited:
      "the runtime's status observations: state, not anyone's decision (pod.evt.status-changed has them)",
  },
  [Subjects.pod.hostFailed]: {
    notAudited: "the fleet's report of a failed host: no account's decision; its pods' status changes follow",
  },
  [Subjects.pod.hostLost]: {
    notAudited:
      'the pods of a host found unhealthy or gone, whose report (host.report-health, host.remove) is audited',
  },
  [Subjects.pod.hostNotice]: {
    notAudited: "the notices on a draining host's pods, whose drain (host.drain, host.uncordon) is audited",
  },
  [Subjects.pod.hostDrained]: {
    notAudited: "the pods left on a host at its drain's deadline, whose drain (host.drain) is audited",
  },
  [Subjects.pod.sealEnv]: { notAudited: 'a one-off migration sealing legacy worker keys, no account acts' },
  [Subjects.pod.createClusterMembers]: {
    notAudited: 'the members of a cluster, created because of the audited cluster.create',
  },
  [Subjects.pod.terminateClusterMembers]: {
    notAudited: 'the members of a cluster, terminated because of the audited cluster.delete',
  },
  [Subjects.template.create]: {
    action: 'template.create',
    resourceType: 'template',
    resourceId: [{ value: 'id' }],
    details: ['name'],
  },
  [Subjects.template.update]: {
    action: 'template.update',
    resourceType: 'template',
    resourceId: [{ payload: 'id' }],
  },
  [Subjects.template.delete]: {
    action: 'template.delete',
    resourceType: 'template',
    resourceId: [{ payload: 'id' }],
  },
  [Subjects.endpoint.save]: {
    action: 'endpoint.save',
    resourceType: 'endpoint',
    resourceId: [{ value: 'id' }, { payload: 'id' }],
    details: ['name', 'templateId'],
  },
  [Subjects.endpoint.delete]: {
    action: 'endpoint.delete',
    resourceType: 'endpoint',
    resourceId: [{ payload: 'id' }],
  },
  [Subjects.endpoint.remove]: {
    notAudited: "the control loop's removal of a deleted endpoint's record; the endpoint.delete is audited",
  },
  [Subjects.endpoint.drainWorkers]: {
    notAudited:
      "the workers of a draining host, marked for replacement; the drain (host.drain) is audited, the loop's changes are scaling events",
  },
  [Subjects.spend.setLimit]: {
    action: 'billing.set-spend-limit',
    resourceType: 'account',
    resourceId: [{ payload: 'userId' }],
    account: [{ payload: 'userId' }],
    details: ['setBy'],
  },
  [Subjects.account.createUser]: {
    action: 'user.create',
    resourceType: 'user',
    resourceId: [{ value: 'id' }],
    account: [{ value: 'id' }],
    details: ['name'],
  },
  [Subjects.account.updateUser]: {
    action: 'user.update',
    resourceType: 'user',
    resourceId: [{ value: 'id' }, { payload: 'user' }],
    account: [{ value: 'id' }],
  },
  [Subjects.account.deleteUser]: {
    action: 'user.delete',
    resourceType: 'user',
    resourceId: [{ payload: 'user' }],
    account: [{ payload: 'user' }],
  },
  [Subjects.account.createKey]: {
    action: 'api-key.create',
    resourceType: 'api-key',
    resourceId: [{ value: 'id' }],
    account: [{ value: 'accountId' }, { payload: 'teamId' }],
    details: ['name', 'scope'],
  },
  [Subjects.account.revokeKeys]: {
    action: 'api-key.revoke',
    resourceType: 'api-key',
    resourceId: [{ payload: 'keyId' }, { payload: 'workersOfEndpoint' }],
    account: [{ payload: 'teamId' }],
  },
  [Subjects.account.createTeam]: {
    action: 'team.create',
    resourceType: 'team',
    resourceId: [{ value: 'id' }],
    account: [{ value: 'id' }],
    details: ['name'],
  },
  [Subjects.account.renameTeam]: {
    action: 'team.rename',
    resourceType: 'team',
    resourceId: [{ payload: 'teamId' }],
    account: [{ payload: 'teamId' }],
    details: ['name'],
  },
  [Subjects.account.deleteTeam]: {
    action: 'team.delete',
    resourceType: 'team',
    resourceId: [{ payload: 'teamId' }],
    account: [{ payload: 'teamId' }],
  },
  [Subjects.account.addMember]: {
    action: 'team.add-member',
    resourceType: 'team',
    resourceId: [{ payload: 'teamId' }],
    account: [{ payload: 'teamId' }],
    details: ['user', 'role'],
  },
  [Subjects.account.setMemberRole]: {
    action: 'team.set-member-role',
    resourceType: 'team',
    resourceId: [{ payload: 'teamId' }],
    account: [{ payload: 'teamId' }],
    details: ['userId', 'role'],
  },
  [Subjects.account.removeMember]: {
    action: 'team.remove-member',
    resourceType: 'team',
    resourceId: [{ payload: 'teamId' }],
    account: [{ payload: 'teamId' }],
    details: ['userId'],
  },
};
