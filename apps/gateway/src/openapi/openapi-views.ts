import type {
  ApiKeyList,
  AuditPage,
  CreatedApiKey,
  BillingSummaryList,
  BillingV1Record,
  ClusterBillingList,
  NetworkVolumeBillingList,
  PodBillingList,
  ServerlessBillingList,
  UsageExport,
  ClusterList,
  ClusterView,
  CpuTypeView,
  DataCenterView,
  EndpointHealth,
  EndpointMetrics,
  EndpointV1View,
  EndpointV2List,
  EndpointV2View,
  FleetCapacityView,
  GpuTypeView,
  HostDetailView,
  HostListView,
  JobAccepted,
  JobDetail,
  JobDoneResult,
  JobPage,
  JobStreamResult,
  JobView,
  NetworkVolumeList,
  NetworkVolumeView,
  PodDetailsView,
  PodLogPage,
  PodV2List,
  PodV2View,
  PodView,
  PurgeResult,
  QuotaHistoryView,
  QuotaListView,
  QuotaView,
  RegistryAuthView,
  RegistryList,
  SpendStatus,
  SshKeySet,
  SshKeyView,
  StopsResult,
  StreamRead,
  TakenJob,
  TeamList,
  TeamMemberList,
  TeamMemberView,
  TeamView,
  TemplateList,
  TemplateV2View,
  UserList,
  UserView,
  TemplateView,
  WebhookSecret,
  WorkerList,
} from '@app/contracts';

/** The error body of every REST route (`#/components/schemas/Problem`). */
export type { Problem } from '../edge/problem.js';

/** `GET /v2/{endpointId}/ping/{workerId}`: the heartbeat was recorded. */
export interface PingResult {
  ok: true;
}

/**
 * Every response body the REST routes document, by the name of its type: `@Responds('PodView')` on a handler
 * names one, the compiler checks that the handler really returns it (openapi.decorators.ts), and `npm run
 * openapi` turns the TypeScript type of each entry into the JSON Schema `#/components/schemas/<name>`. Each key
 * must be the name of the exported type it maps to.
 */
export interface ResponseViews {
  ApiKeyList: ApiKeyList;
  AuditPage: AuditPage;
  CreatedApiKey: CreatedApiKey;
  BillingSummaryList: BillingSummaryList;
  BillingV1Record: BillingV1Record;
  ClusterBillingList: ClusterBillingList;
  NetworkVolumeBillingList: NetworkVolumeBillingList;
  PodBillingList: PodBillingList;
  ServerlessBillingList: ServerlessBillingList;
  UsageExport: UsageExport;
  ClusterList: ClusterList;
  ClusterView: ClusterView;
  CpuTypeView: CpuTypeView;
  DataCenterView: DataCenterView;
  EndpointHealth: EndpointHealth;
  EndpointMetrics: EndpointMetrics;
  EndpointV1View: EndpointV1View;
  EndpointV2List: EndpointV2List;
  EndpointV2View: EndpointV2View;
  FleetCapacityView: FleetCapacityView;
  GpuTypeView: GpuTypeView;
  HostDetailView: HostDetailView;
  HostListView: HostListView;
  JobAccepted: JobAccepted;
  JobDetail: JobDetail;
  JobDoneResult: JobDoneResult;
  JobPage: JobPage;
  JobStreamResult: JobStreamResult;
  JobView: JobView;
  NetworkVolumeList: NetworkVolumeList;
  NetworkVolumeView: NetworkVolumeView;
  PingResult: PingResult;
  PodDetailsView: PodDetailsView;
  PodLogPage: PodLogPage;
  PodV2List: PodV2List;
  PodV2View: PodV2View;
  PodView: PodView;
  PurgeResult: PurgeResult;
  QuotaHistoryView: QuotaHistoryView;
  QuotaListView: QuotaListView;
  QuotaView: QuotaView;
  RegistryAuthView: RegistryAuthView;
  RegistryList: RegistryList;
  SpendStatus: SpendStatus;
  SshKeySet: SshKeySet;
  SshKeyView: SshKeyView;
  StopsResult: StopsResult;
  StreamRead: StreamRead;
  TakenJob: TakenJob;
  TeamList: TeamList;
  TeamMemberList: TeamMemberList;
  TeamMemberView: TeamMemberView;
  TeamView: TeamView;
  TemplateList: TemplateList;
  TemplateV2View: TemplateV2View;
  TemplateView: TemplateView;
  UserList: UserList;
  UserView: UserView;
  WebhookSecret: WebhookSecret;
  WorkerList: WorkerList;
}

export type ViewName = keyof ResponseViews;
