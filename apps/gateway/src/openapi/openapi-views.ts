import type {
  ClusterMemberView,
  ClusterView,
  CpuTypeView,
  DataCenterView,
  EndpointHealth,
  GpuTypeView,
  JobAccepted,
  JobDoneResult,
  JobStreamResult,
  JobView,
  NetworkVolumeView,
  PodView,
  PurgeResult,
  RegistryAuthView,
  SshKeyView,
  StopsResult,
  StreamRead,
  TakenJob,
  TemplateView,
} from '@app/contracts';

/** The error body of every REST route (`#/components/schemas/Problem`). */
export type { Problem } from '../edge/problem.js';

/** A member of `GET /v2/clusters/{id}/pods`: the full pod, or the member record while its pod is not created yet. */
export type ClusterPod = PodView | ClusterMemberView;

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
  ClusterPod: ClusterPod;
  ClusterView: ClusterView;
  CpuTypeView: CpuTypeView;
  DataCenterView: DataCenterView;
  EndpointHealth: EndpointHealth;
  GpuTypeView: GpuTypeView;
  JobAccepted: JobAccepted;
  JobDoneResult: JobDoneResult;
  JobStreamResult: JobStreamResult;
  JobView: JobView;
  NetworkVolumeView: NetworkVolumeView;
  PingResult: PingResult;
  PodView: PodView;
  PurgeResult: PurgeResult;
  RegistryAuthView: RegistryAuthView;
  SshKeyView: SshKeyView;
  StopsResult: StopsResult;
  StreamRead: StreamRead;
  TakenJob: TakenJob;
  TemplateView: TemplateView;
}

export type ViewName = keyof ResponseViews;
