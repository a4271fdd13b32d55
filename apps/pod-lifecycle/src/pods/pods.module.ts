import { Module } from '@nestjs/common';
import { PersistenceModule } from '../persistence.module.js';
import { SpendModule } from '../spend/spend.module.js';
import { CatalogTemplatesModule } from '../templates/catalog-templates.module.js';
import { DeletedClustersRepository } from './deleted-clusters/deleted-clusters.repository.js';
import { CreateClusterMembersHandler } from './create-cluster-members/create-cluster-members.handler.js';
import { CreatePodHandler } from './create-pod/create-pod.handler.js';
import { GetPodHandler } from './get-pod/get-pod.handler.js';
import { HostDrainedHandler } from './host-drained/host-drained.handler.js';
import { HostFailedHandler } from './host-failed/host-failed.handler.js';
import { HostLostHandler } from './host-lost/host-lost.handler.js';
import { HostNoticeHandler } from './host-notice/host-notice.handler.js';
import { HostStateReactions } from './host-state.reaction.js';
import { ListPodsHandler } from './list-pods/list-pods.handler.js';
import { PodV2ViewCache } from './list-pods/pod-v2-view.cache.js';
import { ListPodStatesHandler } from './list-pod-states/list-pod-states.handler.js';
import { ListPodsByClusterHandler } from './list-pods-by-cluster/list-pods-by-cluster.handler.js';
import { ListWorkerRunsHandler } from './list-worker-runs/list-worker-runs.handler.js';
import { ObservePodHandler } from './observe-pod/observe-pod.handler.js';
import { PodTransitions } from './pod-transitions.js';
import { PreemptPodsHandler } from './preempt-pods/preempt-pods.handler.js';
import { ResetPodHandler } from './reset-pod/reset-pod.handler.js';
import { LegacyWorkerKeys } from './seal-pod-env/legacy-worker-keys.service.js';
import { SealPodEnvHandler } from './seal-pod-env/seal-pod-env.handler.js';
import { StartPodHandler } from './start-pod/start-pod.handler.js';
import { StopPodHandler } from './stop-pod/stop-pod.handler.js';
import { TerminateClusterMembersHandler } from './terminate-cluster-members/terminate-cluster-members.handler.js';
import { TerminatePodHandler } from './terminate-pod/terminate-pod.handler.js';
import { UpdatePodHandler } from './update-pod/update-pod.handler.js';
import { ReportStartFailuresHandler } from './report-start-failures/report-start-failures.handler.js';
import { HostStartFailures } from './start-failures/host-start-failures.service.js';
import { HostStartFailuresRepository } from './start-failures/host-start-failures.repository.js';
import { PodUsageHandler } from './usage/pod-usage.handler.js';
import { PodUsageRepository } from './usage/pod-usage.repository.js';
import { PodUsage } from './usage/pod-usage.service.js';

@Module({
  imports: [PersistenceModule, CatalogTemplatesModule, SpendModule.register(PodUsageRepository)],
  providers: [
    PodTransitions,
    CreatePodHandler,
    StartPodHandler,
    StopPodHandler,
    ResetPodHandler,
    TerminatePodHandler,
    UpdatePodHandler,
    ObservePodHandler,
    HostStartFailures,
    HostStartFailuresRepository,
    ReportStartFailuresHandler,
    HostFailedHandler,
    HostStateReactions,
    HostLostHandler,
    HostNoticeHandler,
    HostDrainedHandler,
    PreemptPodsHandler,
    SealPodEnvHandler,
    LegacyWorkerKeys,
    GetPodHandler,
    ListPodsHandler,
    PodV2ViewCache,
    ListPodsByClusterHandler,
    ListPodStatesHandler,
    ListWorkerRunsHandler,
    CreateClusterMembersHandler,
    TerminateClusterMembersHandler,
    DeletedClustersRepository,
    PodUsage,
    PodUsageRepository,
    PodUsageHandler,
  ],
})
export class PodsModule {}
