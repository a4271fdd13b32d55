import { RecordLbRequestsCommand } from '../metrics/lb-requests.contracts.js';
import {
  AddMemberCommand,
  CreateKeyCommand,
  CreateTeamCommand,
  CreateUserCommand,
  DeleteUserCommand,
  type KeyRecordView,
  type MemberChanged,
  RemoveMemberCommand,
  RenameTeamCommand,
  RevokeKeysCommand,
  type RevokedKeys,
  SetMemberRoleCommand,
  TeamRefCommand,
  type TeamView,
  UpdateUserCommand,
  type UserView,
} from '../accounts/account.commands.js';
import {
  CreateRegistryAuthCommand,
  DeleteRegistryAuthCommand,
  UpdateRegistryAuthCommand,
} from '../registry-auth/registry-auth.commands.js';
import type { RegistryAuthView } from '../registry-auth/registry-auth.dto.js';
import {
  ReleasePodCommand,
  ReservePodCommand,
  type PlacementView,
} from '../placement/placement.contracts.js';
import {
  type ClusterMembersResult,
  CreateClusterMembersCommand,
  CreatePodCommand,
  HostFailedCommand,
  type HostFailedResult,
  ObservePodCommand,
  type ObservePodResult,
  PodActionCommand,
  SealPodEnvCommand,
  type SealPodEnvResult,
  TerminateClusterMembersCommand,
  UpdatePodCommand,
} from '../pods/pod.commands.js';
import {
  HostDrainedCommand,
  HostLostCommand,
  HostNoticeCommand,
  type HostNoticeResult,
  type HostPodsResult,
} from '../pods/pod-host.commands.js';
import { DrainWorkersCommand, type DrainWorkersResult } from '../endpoints/endpoint-drain.contracts.js';
import type { PodView } from '../pods/pod.dto.js';
import { SetSpendLimitCommand, type SpendLimitView } from '../usage/spend-limit.contracts.js';
import {
  CreateTemplateCommand,
  DeleteTemplateCommand,
  UpdateTemplateCommand,
} from '../templates/template.commands.js';
import type { TemplateView } from '../templates/template.dto.js';
import {
  CreateClusterCommand,
  DeleteClusterCommand,
  RenameClusterCommand,
  type ClusterRenamed,
} from '../clusters/cluster.commands.js';
import type { ClusterView } from '../clusters/cluster.dto.js';
import {
  CreateNetworkVolumeCommand,
  DeleteNetworkVolumeCommand,
  UpdateNetworkVolumeCommand,
  type NetworkVolumeView,
} from '../volumes/network-volume.contracts.js';
import {
  DeleteEndpointCommand,
  RemoveEndpointCommand,
  SaveEndpointCommand,
  type EndpointView,
} from '../endpoints/endpoint.contracts.js';
import {
  JobRefCommand,
  PurgeQueueCommand,
  SetJobTtlCommand,
  SubmitJobCommand,
  SubmitManyCommand,
  SweepJobsCommand,
  TakeJobsCommand,
} from '../jobs/job.contracts.js';
import {
  CollectStopsCommand,
  JobDoneCommand,
  JobDoneManyCommand,
  JobStreamCommand,
  PingWorkerCommand,
  RegisterWorkerCommand,
} from '../jobs/worker.contracts.js';
import type {
  JobAccepted,
  JobDoneManyResult,
  JobDoneResult,
  JobStreamResult,
  PurgeOutcome,
  StopsResult,
  StreamRead,
  SubmitManyResult,
  SubmitResult,
  TakeResult,
} from '../jobs/job.views.js';
import { RotateWebhookSecretCommand, type WebhookSecretView } from '../jobs/webhook.contracts.js';
import type { Packed } from '../jobs/payload-blobs.js';
import type { AccountChangedEvent, SessionChangedEvent } from '../accounts/account.events.js';
import type { AuditRecordedEvent } from '../audit/audit-entry.js';
import type { OwnedResourceCreatedEvent, OwnedResourceDeletedEvent } from '../common/resource.events.js';
import type { Class } from '../common/validation.js';
import type { EndpointDeletedEvent, EndpointSavedEvent } from '../endpoints/endpoint.contracts.js';
import type {
  JobChangedEvent,
  JobChangedManyEvent,
  JobQueuedEvent,
  JobQueuedManyEvent,
  WorkerStopRequestedEvent,
} from '../jobs/job.events.js';
import type { ClusterCreatedEvent, ClusterDeletedEvent, PodStatusChangedEvent } from '../pods/pod.events.js';
import type { NetworkVolumeCreatedEvent } from '../volumes/network-volume.contracts.js';
import {
  SampleQuotasCommand,
  SetQuotaCommand,
  type QuotaSampleResult,
  type QuotaSetResult,
} from '../quotas/quota.contracts.js';
import {
  PreemptPodsCommand,
  type PreemptPodsResult,
  type PreemptedEvent,
} from '../quotas/preemption.events.js';
import {
  CordonHostCommand,
  DrainHostCommand,
  ExpireDrainsCommand,
  InjectGpuFaultCommand,
  RegisterHostCommand,
  RemoveHostCommand,
  ReportHostHealthCommand,
  UncordonHostCommand,
  type ExpireDrainsResult,
  type HostChangeResult,
  type RegisterHostResult,
} from '../fleet/fleet.contracts.js';
import type { DrainExpiredEvent, HostChangedEvent, HostStartFailuresEvent } from '../fleet/fleet.events.js';
import { Subjects } from './subjects.js';

/** Typed subject → payload/result map of every command. */
export interface CommandContracts {
  [Subjects.job.submit]: { payload: SubmitJobCommand; result: SubmitResult };
  [Subjects.job.submitMany]: { payload: SubmitManyCommand; result: SubmitManyResult };
  [Subjects.job.cancel]: { payload: JobRefCommand; result: JobAccepted };
  [Subjects.job.retry]: { payload: JobRefCommand; result: JobAccepted };
  [Subjects.job.purge]: { payload: PurgeQueueCommand; result: PurgeOutcome };
  [Subjects.job.setTtl]: { payload: SetJobTtlCommand; result: JobAccepted };
  [Subjects.job.readStream]: { payload: JobRefCommand; result: Packed<StreamRead> };
  [Subjects.job.sweep]: { payload: SweepJobsCommand; result: Record<string, number> };
  [Subjects.job.recordLbRequests]: { payload: RecordLbRequestsCommand; result: { rows: number } };
  [Subjects.job.rotateWebhookSecret]: { payload: RotateWebhookSecretCommand; result: WebhookSecretView };
  [Subjects.worker.take]: { payload: TakeJobsCommand; result: Packed<TakeResult> };
  [Subjects.worker.done]: { payload: JobDoneCommand; result: JobDoneResult };
  [Subjects.worker.doneMany]: { payload: JobDoneManyCommand; result: JobDoneManyResult };
  [Subjects.worker.stream]: { payload: JobStreamCommand; result: JobStreamResult };
  [Subjects.worker.ping]: { payload: PingWorkerCommand; result: { requeued: number } };
  [Subjects.worker.collectStops]: { payload: CollectStopsCommand; result: StopsResult };
  [Subjects.worker.register]: { payload: RegisterWorkerCommand; result: null };
  [Subjects.placement.reserve]: { payload: ReservePodCommand; result: PlacementView };
  [Subjects.placement.release]: { payload: ReleasePodCommand; result: null };
  [Subjects.quota.set]: { payload: SetQuotaCommand; result: QuotaSetResult };
  [Subjects.quota.sample]: { payload: SampleQuotasCommand; result: QuotaSampleResult };
  [Subjects.pod.preempt]: { payload: PreemptPodsCommand; result: PreemptPodsResult };
  [Subjects.fleet.register]: { payload: RegisterHostCommand; result: RegisterHostResult };
  [Subjects.fleet.cordon]: { payload: CordonHostCommand; result: HostChangeResult };
  [Subjects.fleet.uncordon]: { payload: UncordonHostCommand; result: HostChangeResult };
  [Subjects.fleet.drain]: { payload: DrainHostCommand; result: HostChangeResult };
  [Subjects.fleet.remove]: { payload: RemoveHostCommand; result: HostChangeResult };
  [Subjects.fleet.reportHealth]: { payload: ReportHostHealthCommand; result: HostChangeResult };
  [Subjects.fleet.expireDrains]: { payload: ExpireDrainsCommand; result: ExpireDrainsResult };
  [Subjects.pod.injectGpuFault]: { payload: InjectGpuFaultCommand; result: HostChangeResult };
  [Subjects.cluster.create]: { payload: CreateClusterCommand; result: ClusterView };
  [Subjects.cluster.delete]: { payload: DeleteClusterCommand; result: null };
  [Subjects.cluster.rename]: { payload: RenameClusterCommand; result: ClusterRenamed };
  [Subjects.volume.create]: { payload: CreateNetworkVolumeCommand; result: NetworkVolumeView };
  [Subjects.volume.update]: { payload: UpdateNetworkVolumeCommand; result: NetworkVolumeView };
  [Subjects.volume.delete]: { payload: DeleteNetworkVolumeCommand; result: null };
  [Subjects.registryAuth.create]: { payload: CreateRegistryAuthCommand; result: RegistryAuthView };
  [Subjects.registryAuth.update]: { payload: UpdateRegistryAuthCommand; result: RegistryAuthView };
  [Subjects.registryAuth.delete]: { payload: DeleteRegistryAuthCommand; result: null };
  [Subjects.pod.create]: { payload: CreatePodCommand; result: PodView };
  [Subjects.pod.start]: { payload: PodActionCommand; result: PodView };
  [Subjects.pod.stop]: { payload: PodActionCommand; result: PodView };
  [Subjects.pod.reset]: { payload: PodActionCommand; result: PodView };
  [Subjects.pod.terminate]: { payload: PodActionCommand; result: PodView };
  [Subjects.pod.update]: { payload: UpdatePodCommand; result: PodView };
  [Subjects.pod.observe]: { payload: ObservePodCommand; result: ObservePodResult };
  [Subjects.pod.hostFailed]: { payload: HostFailedCommand; result: HostFailedResult };
  [Subjects.pod.hostLost]: { payload: HostLostCommand; result: HostPodsResult };
  [Subjects.pod.hostNotice]: { payload: HostNoticeCommand; result: HostNoticeResult };
  [Subjects.pod.hostDrained]: { payload: HostDrainedCommand; result: HostPodsResult };
  [Subjects.pod.sealEnv]: { payload: SealPodEnvCommand; result: SealPodEnvResult };
  [Subjects.pod.createClusterMembers]: { payload: CreateClusterMembersCommand; result: ClusterMembersResult };
  [Subjects.pod.terminateClusterMembers]: {
    payload: TerminateClusterMembersCommand;
    result: ClusterMembersResult;
  };
  [Subjects.template.create]: { payload: CreateTemplateCommand; result: TemplateView };
  [Subjects.template.update]: { payload: UpdateTemplateCommand; result: TemplateView };
  [Subjects.template.delete]: { payload: DeleteTemplateCommand; result: null };
  [Subjects.endpoint.save]: { payload: SaveEndpointCommand; result: EndpointView };
  [Subjects.endpoint.delete]: { payload: DeleteEndpointCommand; result: null };
  [Subjects.endpoint.remove]: { payload: RemoveEndpointCommand; result: null };
  [Subjects.endpoint.drainWorkers]: { payload: DrainWorkersCommand; result: DrainWorkersResult };
  [Subjects.spend.setLimit]: { payload: SetSpendLimitCommand; result: SpendLimitView };
  [Subjects.account.createUser]: { payload: CreateUserCommand; result: UserView };
  [Subjects.account.updateUser]: { payload: UpdateUserCommand; result: UserView };
  [Subjects.account.deleteUser]: { payload: DeleteUserCommand; result: RevokedKeys };
  [Subjects.account.createKey]: { payload: CreateKeyCommand; result: KeyRecordView };
  [Subjects.account.revokeKeys]: { payload: RevokeKeysCommand; result: RevokedKeys };
  [Subjects.account.createTeam]: { payload: CreateTeamCommand; result: TeamView };
  [Subjects.account.renameTeam]: { payload: RenameTeamCommand; result: TeamView };
  [Subjects.account.deleteTeam]: { payload: TeamRefCommand; result: RevokedKeys };
  [Subjects.account.addMember]: { payload: AddMemberCommand; result: MemberChanged };
  [Subjects.account.setMemberRole]: { payload: SetMemberRoleCommand; result: MemberChanged };
  [Subjects.account.removeMember]: { payload: RemoveMemberCommand; result: MemberChanged };
}

/**
 * Typed subject → payload map of every event: `emit(subject, payload)` and an `@EventHandler(subject)`'s context
 * are typed by it, so a wrong payload is a compile error on both sides.
 */
export interface EventContracts {
  [Subjects.audit.recorded]: AuditRecordedEvent;
  [Subjects.account.changed]: AccountChangedEvent;
  [Subjects.account.sessionChanged]: SessionChangedEvent;
  [Subjects.job.queued]: JobQueuedEvent;
  [Subjects.job.changed]: JobChangedEvent;
  [Subjects.job.queuedMany]: JobQueuedManyEvent;
  [Subjects.job.changedMany]: JobChangedManyEvent;
  [Subjects.worker.stopRequested]: WorkerStopRequestedEvent;
  [Subjects.endpoint.saved]: EndpointSavedEvent;
  [Subjects.endpoint.deleted]: EndpointDeletedEvent;
  [Subjects.pod.statusChanged]: PodStatusChangedEvent;
  [Subjects.template.created]: OwnedResourceCreatedEvent;
  [Subjects.template.deleted]: OwnedResourceDeletedEvent;
  [Subjects.cluster.created]: ClusterCreatedEvent;
  [Subjects.placement.preempted]: PreemptedEvent;
  [Subjects.fleet.hostChanged]: HostChangedEvent;
  [Subjects.fleet.drainExpired]: DrainExpiredEvent;
  [Subjects.pod.hostStartFailures]: HostStartFailuresEvent;
  [Subjects.cluster.deleted]: ClusterDeletedEvent;
  [Subjects.volume.created]: NetworkVolumeCreatedEvent;
  [Subjects.volume.deleted]: OwnedResourceDeletedEvent;
  [Subjects.registryAuth.created]: OwnedResourceCreatedEvent;
  [Subjects.registryAuth.deleted]: OwnedResourceDeletedEvent;
}

export type CommandSubject = keyof CommandContracts;
export type EventSubject = keyof EventContracts;
export type EventPayload<S extends EventSubject> = EventContracts[S];
export type CommandPayload<S extends CommandSubject> = CommandContracts[S]['payload'];
export type CommandResult<S extends CommandSubject> = CommandContracts[S]['result'];

/** The class every payload is validated against on receipt, whichever transport brought it. */
export const CommandPayloadClasses: { [S in CommandSubject]: Class<CommandPayload<S>> } = {
  [Subjects.job.submit]: SubmitJobCommand,
  [Subjects.job.submitMany]: SubmitManyCommand,
  [Subjects.job.cancel]: JobRefCommand,
  [Subjects.job.retry]: JobRefCommand,
  [Subjects.job.purge]: PurgeQueueCommand,
  [Subjects.job.setTtl]: SetJobTtlCommand,
  [Subjects.job.readStream]: JobRefCommand,
  [Subjects.job.sweep]: SweepJobsCommand,
  [Subjects.job.recordLbRequests]: RecordLbRequestsCommand,
  [Subjects.job.rotateWebhookSecret]: RotateWebhookSecretCommand,
  [Subjects.worker.take]: TakeJobsCommand,
  [Subjects.worker.done]: JobDoneCommand,
  [Subjects.worker.doneMany]: JobDoneManyCommand,
  [Subjects.worker.stream]: JobStreamCommand,
  [Subjects.worker.ping]: PingWorkerCommand,
  [Subjects.worker.collectStops]: CollectStopsCommand,
  [Subjects.worker.register]: RegisterWorkerCommand,
  [Subjects.placement.reserve]: ReservePodCommand,
  [Subjects.placement.release]: ReleasePodCommand,
  [Subjects.quota.set]: SetQuotaCommand,
  [Subjects.quota.sample]: SampleQuotasCommand,
  [Subjects.pod.preempt]: PreemptPodsCommand,
  [Subjects.fleet.register]: RegisterHostCommand,
  [Subjects.fleet.cordon]: CordonHostCommand,
  [Subjects.fleet.uncordon]: UncordonHostCommand,
  [Subjects.fleet.drain]: DrainHostCommand,
  [Subjects.fleet.remove]: RemoveHostCommand,
  [Subjects.fleet.reportHealth]: ReportHostHealthCommand,
  [Subjects.fleet.expireDrains]: ExpireDrainsCommand,
  [Subjects.pod.injectGpuFault]: InjectGpuFaultCommand,
  [Subjects.cluster.create]: CreateClusterCommand,
  [Subjects.cluster.delete]: DeleteClusterCommand,
  [Subjects.cluster.rename]: RenameClusterCommand,
  [Subjects.volume.create]: CreateNetworkVolumeCommand,
  [Subjects.volume.update]: UpdateNetworkVolumeCommand,
  [Subjects.volume.delete]: DeleteNetworkVolumeCommand,
  [Subjects.registryAuth.create]: CreateRegistryAuthCommand,
  [Subjects.registryAuth.update]: UpdateRegistryAuthCommand,
  [Subjects.registryAuth.delete]: DeleteRegistryAuthCommand,
  [Subjects.pod.create]: CreatePodCommand,
  [Subjects.pod.start]: PodActionCommand,
  [Subjects.pod.stop]: PodActionCommand,
  [Subjects.pod.reset]: PodActionCommand,
  [Subjects.pod.terminate]: PodActionCommand,
  [Subjects.pod.update]: UpdatePodCommand,
  [Subjects.pod.observe]: ObservePodCommand,
  [Subjects.pod.hostFailed]: HostFailedCommand,
  [Subjects.pod.hostLost]: HostLostCommand,
  [Subjects.pod.hostNotice]: HostNoticeCommand,
  [Subjects.pod.hostDrained]: HostDrainedCommand,
  [Subjects.pod.sealEnv]: SealPodEnvCommand,
  [Subjects.pod.createClusterMembers]: CreateClusterMembersCommand,
  [Subjects.pod.terminateClusterMembers]: TerminateClusterMembersCommand,
  [Subjects.template.create]: CreateTemplateCommand,
  [Subjects.template.update]: UpdateTemplateCommand,
  [Subjects.template.delete]: DeleteTemplateCommand,
  [Subjects.endpoint.save]: SaveEndpointCommand,
  [Subjects.endpoint.delete]: DeleteEndpointCommand,
  [Subjects.endpoint.remove]: RemoveEndpointCommand,
  [Subjects.endpoint.drainWorkers]: DrainWorkersCommand,
  [Subjects.spend.setLimit]: SetSpendLimitCommand,
  [Subjects.account.createUser]: CreateUserCommand,
  [Subjects.account.updateUser]: UpdateUserCommand,
  [Subjects.account.deleteUser]: DeleteUserCommand,
  [Subjects.account.createKey]: CreateKeyCommand,
  [Subjects.account.revokeKeys]: RevokeKeysCommand,
  [Subjects.account.createTeam]: CreateTeamCommand,
  [Subjects.account.renameTeam]: RenameTeamCommand,
  [Subjects.account.deleteTeam]: TeamRefCommand,
  [Subjects.account.addMember]: AddMemberCommand,
  [Subjects.account.setMemberRole]: SetMemberRoleCommand,
  [Subjects.account.removeMember]: RemoveMemberCommand,
};
