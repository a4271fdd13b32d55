import { GetRegistryAuthQuery, ListRegistryAuthQuery } from '../registry-auth/registry-auth.commands.js';
import type { RegistryAuthView } from '../registry-auth/registry-auth.dto.js';
import {
  GetPodQuery,
  ListPodStatesQuery,
  ListPodsByClusterQuery,
  ListPodsQuery,
} from '../pods/pod.commands.js';
import type { PodV2View } from '../pods/pod-v2.dto.js';
import type { PodStateView, PodView } from '../pods/pod.dto.js';
import { GetSpendStatusQuery, type SpendStatus } from '../usage/spend-limit.contracts.js';
import { ListWorkerPodRunsQuery, type WorkerPodRun } from '../pods/worker-pod-runs.contracts.js';
import {
  GetTemplateQuery,
  ListCatalogTemplatesQuery,
  ListTemplatesQuery,
} from '../templates/template.commands.js';
import type { TemplateView } from '../templates/template.dto.js';
import { GetClusterQuery, ListClusterMembersQuery, ListClustersQuery } from '../clusters/cluster.commands.js';
import type { ClusterMemberView, ClusterView } from '../clusters/cluster.dto.js';
import {
  ListCpuTypesQuery,
  ListDataCentersQuery,
  ListGpuTypesQuery,
  type CpuTypeView,
  type DataCenterView,
  type GpuTypeView,
} from '../catalog/catalog.contracts.js';
import {
  GetNetworkVolumeQuery,
  ListNetworkVolumesQuery,
  type NetworkVolumeView,
} from '../volumes/network-volume.contracts.js';
import { UsageQuery, type PodUsageRecord, type VolumeUsageRecord } from '../usage/usage.contracts.js';
import { GetEndpointQuery, ListEndpointsQuery, type EndpointView } from '../endpoints/endpoint.contracts.js';
import { EndpointJobsQuery, EndpointsJobsQuery, GetJobQuery } from '../jobs/job.contracts.js';
import {
  GetJobDetailQuery,
  ListEndpointJobsQuery,
  type JobDetailView,
  type JobListView,
} from '../jobs/job-history.contracts.js';
import type { EndpointHealth, JobRead, QueueStats } from '../jobs/job.views.js';
import { ListWorkersQuery, type BrokerWorkerList } from '../jobs/worker-list.contracts.js';
import { GetWebhookSecretQuery, type WebhookSecretView } from '../jobs/webhook.contracts.js';
import type { Packed } from '../jobs/payload-blobs.js';
import { EndpointMetricsQuery, type EndpointMetrics } from '../metrics/endpoint-metrics.contracts.js';
import type { Class } from '../common/validation.js';
import {
  GetQuotaQuery,
  ListQuotasQuery,
  QuotaHistoryQuery,
  type QuotaHistoryView,
  type QuotaListView,
  type QuotaView,
} from '../quotas/quota.contracts.js';
import {
  FleetCapacityQuery,
  GetHostQuery,
  ListHostsQuery,
  type FleetCapacityView,
  type HostDetailView,
  type HostListView,
} from '../fleet/fleet.views.js';
import { Subjects } from './subjects.js';

/** Typed subject → payload/result map of every query. */
export interface QueryContracts {
  [Subjects.job.get]: { payload: GetJobQuery; result: Packed<JobRead> };
  [Subjects.job.health]: { payload: EndpointJobsQuery; result: EndpointHealth };
  [Subjects.job.queueStats]: { payload: EndpointJobsQuery; result: QueueStats };
  [Subjects.job.queueStatsMany]: { payload: EndpointsJobsQuery; result: QueueStats[] };
  [Subjects.job.metrics]: { payload: EndpointMetricsQuery; result: EndpointMetrics };
  [Subjects.job.webhookSecret]: { payload: GetWebhookSecretQuery; result: WebhookSecretView | null };
  [Subjects.job.list]: { payload: ListEndpointJobsQuery; result: JobListView };
  [Subjects.job.detail]: { payload: GetJobDetailQuery; result: Packed<JobDetailView> };
  [Subjects.worker.list]: { payload: ListWorkersQuery; result: BrokerWorkerList };
  [Subjects.endpoint.get]: { payload: GetEndpointQuery; result: EndpointView };
  [Subjects.endpoint.list]: { payload: ListEndpointsQuery; result: EndpointView[] };
  [Subjects.cluster.get]: { payload: GetClusterQuery; result: ClusterView };
  [Subjects.cluster.list]: { payload: ListClustersQuery; result: ClusterView[] };
  [Subjects.cluster.listMembers]: { payload: ListClusterMembersQuery; result: ClusterMemberView[] };
  [Subjects.catalog.gpuTypes]: { payload: ListGpuTypesQuery; result: GpuTypeView[] };
  [Subjects.catalog.cpuTypes]: { payload: ListCpuTypesQuery; result: CpuTypeView[] };
  [Subjects.catalog.dataCenters]: { payload: ListDataCentersQuery; result: DataCenterView[] };
  [Subjects.volume.get]: { payload: GetNetworkVolumeQuery; result: NetworkVolumeView };
  [Subjects.volume.list]: { payload: ListNetworkVolumesQuery; result: NetworkVolumeView[] };
  [Subjects.volume.usage]: { payload: UsageQuery; result: VolumeUsageRecord[] };
  [Subjects.registryAuth.list]: { payload: ListRegistryAuthQuery; result: RegistryAuthView[] };
  [Subjects.registryAuth.get]: { payload: GetRegistryAuthQuery; result: RegistryAuthView };
  [Subjects.pod.get]: { payload: GetPodQuery; result: PodView };
  [Subjects.pod.list]: { payload: ListPodsQuery; result: PodView[] };
  [Subjects.pod.listV2]: { payload: ListPodsQuery; result: PodV2View[] };
  [Subjects.pod.listByCluster]: { payload: ListPodsByClusterQuery; result: PodView[] };
  [Subjects.pod.listWorkerRuns]: { payload: ListWorkerPodRunsQuery; result: WorkerPodRun[] };
  [Subjects.pod.states]: { payload: ListPodStatesQuery; result: PodStateView[] };
  [Subjects.pod.usage]: { payload: UsageQuery; result: PodUsageRecord[] };
  [Subjects.template.list]: { payload: ListTemplatesQuery; result: TemplateView[] };
  [Subjects.template.get]: { payload: GetTemplateQuery; result: TemplateView };
  [Subjects.template.catalog]: { payload: ListCatalogTemplatesQuery; result: TemplateView[] };
  [Subjects.spend.status]: { payload: GetSpendStatusQuery; result: SpendStatus };
  [Subjects.quota.get]: { payload: GetQuotaQuery; result: QuotaView };
  [Subjects.quota.list]: { payload: ListQuotasQuery; result: QuotaListView };
  [Subjects.quota.history]: { payload: QuotaHistoryQuery; result: QuotaHistoryView };
  [Subjects.fleet.listHosts]: { payload: ListHostsQuery; result: HostListView };
  [Subjects.fleet.getHost]: { payload: GetHostQuery; result: HostDetailView };
  [Subjects.fleet.capacity]: { payload: FleetCapacityQuery; result: FleetCapacityView };
}

export type QuerySubject = keyof QueryContracts;
export type QueryPayload<S extends QuerySubject> = QueryContracts[S]['payload'];
export type QueryResult<S extends QuerySubject> = QueryContracts[S]['result'];

export const QueryPayloadClasses: { [S in QuerySubject]: Class<QueryPayload<S>> } = {
  [Subjects.job.get]: GetJobQuery,
  [Subjects.job.health]: EndpointJobsQuery,
  [Subjects.job.queueStats]: EndpointJobsQuery,
  [Subjects.job.queueStatsMany]: EndpointsJobsQuery,
  [Subjects.job.metrics]: EndpointMetricsQuery,
  [Subjects.job.webhookSecret]: GetWebhookSecretQuery,
  [Subjects.job.list]: ListEndpointJobsQuery,
  [Subjects.job.detail]: GetJobDetailQuery,
  [Subjects.worker.list]: ListWorkersQuery,
  [Subjects.endpoint.get]: GetEndpointQuery,
  [Subjects.endpoint.list]: ListEndpointsQuery,
  [Subjects.cluster.get]: GetClusterQuery,
  [Subjects.cluster.list]: ListClustersQuery,
  [Subjects.cluster.listMembers]: ListClusterMembersQuery,
  [Subjects.catalog.gpuTypes]: ListGpuTypesQuery,
  [Subjects.catalog.cpuTypes]: ListCpuTypesQuery,
  [Subjects.catalog.dataCenters]: ListDataCentersQuery,
  [Subjects.volume.get]: GetNetworkVolumeQuery,
  [Subjects.volume.list]: ListNetworkVolumesQuery,
  [Subjects.volume.usage]: UsageQuery,
  [Subjects.registryAuth.list]: ListRegistryAuthQuery,
  [Subjects.registryAuth.get]: GetRegistryAuthQuery,
  [Subjects.pod.get]: GetPodQuery,
  [Subjects.pod.list]: ListPodsQuery,
  [Subjects.pod.listV2]: ListPodsQuery,
  [Subjects.pod.listByCluster]: ListPodsByClusterQuery,
  [Subjects.pod.listWorkerRuns]: ListWorkerPodRunsQuery,
  [Subjects.pod.states]: ListPodStatesQuery,
  [Subjects.pod.usage]: UsageQuery,
  [Subjects.template.list]: ListTemplatesQuery,
  [Subjects.template.get]: GetTemplateQuery,
  [Subjects.template.catalog]: ListCatalogTemplatesQuery,
  [Subjects.spend.status]: GetSpendStatusQuery,
  [Subjects.quota.get]: GetQuotaQuery,
  [Subjects.quota.list]: ListQuotasQuery,
  [Subjects.quota.history]: QuotaHistoryQuery,
  [Subjects.fleet.listHosts]: ListHostsQuery,
  [Subjects.fleet.getHost]: GetHostQuery,
  [Subjects.fleet.capacity]: FleetCapacityQuery,
};
