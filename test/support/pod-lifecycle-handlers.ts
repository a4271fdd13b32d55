import {
  DomainError,
  ErrorCode,
  Subjects,
  type Actor,
  type ClusterCreatedEvent,
  type PlacementView,
  type PodView,
  type RegistryAuthView,
  type ReservePodCommand,
  type TemplateView,
} from '@app/contracts';
import { DATA_SOURCE_SPEC } from '../../apps/pod-lifecycle/src/data-source.js';
import { PodLifecycleConfig } from '../../apps/pod-lifecycle/src/pod-lifecycle.config.js';
import { CreateClusterMembersHandler } from '../../apps/pod-lifecycle/src/pods/create-cluster-members/create-cluster-members.handler.js';
import { CreatePodHandler } from '../../apps/pod-lifecycle/src/pods/create-pod/create-pod.handler.js';
import { DeletedClustersRepository } from '../../apps/pod-lifecycle/src/pods/deleted-clusters/deleted-clusters.repository.js';
import { GetPodHandler } from '../../apps/pod-lifecycle/src/pods/get-pod/get-pod.handler.js';
import { HostDrainedHandler } from '../../apps/pod-lifecycle/src/pods/host-drained/host-drained.handler.js';
import { HostFailedHandler } from '../../apps/pod-lifecycle/src/pods/host-failed/host-failed.handler.js';
import { HostLostHandler } from '../../apps/pod-lifecycle/src/pods/host-lost/host-lost.handler.js';
import { HostNoticeHandler } from '../../apps/pod-lifecycle/src/pods/host-notice/host-notice.handler.js';
import { ListPodsByClusterHandler } from '../../apps/pod-lifecycle/src/pods/list-pods-by-cluster/list-pods-by-cluster.handler.js';
import { ListPodStatesHandler } from '../../apps/pod-lifecycle/src/pods/list-pod-states/list-pod-states.handler.js';
import { ListPodsHandler } from '../../apps/pod-lifecycle/src/pods/list-pods/list-pods.handler.js';
import { PodV2ViewCache } from '../../apps/pod-lifecycle/src/pods/list-pods/pod-v2-view.cache.js';
import { ListWorkerRunsHandler } from '../../apps/pod-lifecycle/src/pods/list-worker-runs/list-worker-runs.handler.js';
import { ObservePodHandler } from '../../apps/pod-lifecycle/src/pods/observe-pod/observe-pod.handler.js';
import { PodTransitions } from '../../apps/pod-lifecycle/src/pods/pod-transitions.js';
import { PodRepository } from '../../apps/pod-lifecycle/src/pods/pod.repository.js';
import { PreemptPodsHandler } from '../../apps/pod-lifecycle/src/pods/preempt-pods/preempt-pods.handler.js';
import { ResetPodHandler } from '../../apps/pod-lifecycle/src/pods/reset-pod/reset-pod.handler.js';
import { SealPodEnvHandler } from '../../apps/pod-lifecycle/src/pods/seal-pod-env/seal-pod-env.handler.js';
import { StartPodHandler } from '../../apps/pod-lifecycle/src/pods/start-pod/start-pod.handler.js';
import { StopPodHandler } from '../../apps/pod-lifecycle/src/pods/stop-pod/stop-pod.handler.js';
import { TerminateClusterMembersHandler } from '../../apps/pod-lifecycle/src/pods/terminate-cluster-members/terminate-cluster-members.handler.js';
import { TerminatePodHandler } from '../../apps/pod-lifecycle/src/pods/terminate-pod/terminate-pod.handler.js';
import { HostStartFailures } from '../../apps/pod-lifecycle/src/pods/start-failures/host-start-failures.service.js';
import { HostStartFailuresRepository } from '../../apps/pod-lifecycle/src/pods/start-failures/host-start-failures.repository.js';
import { UpdatePodHandler } from '../../apps/pod-lifecycle/src/pods/update-pod/update-pod.handler.js';
import { PodUsageHandler } from '../../apps/pod-lifecycle/src/pods/usage/pod-usage.handler.js';
import { PodUsageRepository } from '../../apps/pod-lifecycle/src/pods/usage/pod-usage.repository.js';
import { PodUsage } from '../../apps/pod-lifecycle/src/pods/usage/pod-usage.service.js';
import { CreateRegistryAuthHandler } from '../../apps/pod-lifecycle/src/registry-auth/create-registry-auth/create-registry-auth.handler.js';
import { DeleteRegistryAuthHandler } from '../../apps/pod-lifecycle/src/registry-auth/delete-registry-auth/delete-registry-auth.handler.js';
import { GetRegistryAuthHandler } from '../../apps/pod-lifecycle/src/registry-auth/get-registry-auth/get-registry-auth.handler.js';
import { ListRegistryAuthHandler } from '../../apps/pod-lifecycle/src/registry-auth/list-registry-auth/list-registry-auth.handler.js';
import { RegistryAuthRepository } from '../../apps/pod-lifecycle/src/registry-auth/registry-auth.repository.js';
import { UpdateRegistryAuthHandler } from '../../apps/pod-lifecycle/src/registry-auth/update-registry-auth/update-registry-auth.handler.js';
import { SetSpendLimitHandler } from '../../apps/pod-lifecycle/src/spend/set-spend-limit/set-spend-limit.handler.js';
import { SpendLedger } from '../../apps/pod-lifecycle/src/spend/spend-ledger.service.js';
import { SpendLimitsRepository } from '../../apps/pod-lifecycle/src/spend/spend-limits.repository.js';
import { SpendStatusHandler } from '../../apps/pod-lifecycle/src/spend/spend-status/spend-status.handler.js';
import { CatalogTemplates } from '../../apps/pod-lifecycle/src/templates/catalog-templates.js';
import { CreateTemplateHandler } from '../../apps/pod-lifecycle/src/templates/create-template/create-template.handler.js';
import { DeleteTemplateHandler } from '../../apps/pod-lifecycle/src/templates/delete-template/delete-template.handler.js';
import { GetTemplateHandler } from '../../apps/pod-lifecycle/src/templates/get-template/get-template.handler.js';
import { ListCatalogTemplatesHandler } from '../../apps/pod-lifecycle/src/templates/list-catalog-templates/list-catalog-templates.handler.js';
import { ListTemplatesHandler } from '../../apps/pod-lifecycle/src/templates/list-templates/list-templates.handler.js';
import { TemplateRepository } from '../../apps/pod-lifecycle/src/templates/template.repository.js';
import { UpdateTemplateHandler } from '../../apps/pod-lifecycle/src/templates/update-template/update-template.handler.js';
import { HandlerHarness, InProcessQueries, type SendOptions } from './handler-harness.js';
import { StandInCommands } from './stand-in-commands.js';

/** The GPU type the scheduler's stand-in places; any other it refuses as the scheduler refuses an unknown one. */
export const GPU = 'NVIDIA A100 80GB PCIe';
/** The prices the stand-in's placements carry: per GPU per hour, per GB of container disk per hour. */
export const RATES = { perGpuHr: 1.5, containerDiskPerGbHr: 0.0001 };
export const SYSTEM: Actor = { userId: 'system', kind: 'system' };
/** A registry password as the gateway seals it (the handlers store it and never open it). */
export const SEALED = 'v1.test-key.c2VhbGVk';

/**
 * The scheduler's answer to `placement.cmd.reserve`, as pod-lifecycle's tests stand in for it (an app's test
 * imports no other app): each pod on a host of its own (the one asked for on a resume), its ports mapped from
 * 40000, the prices in RATES; a GPU type other than GPU refused (422).
 */
export function reserve(command: ReservePodCommand): PlacementView {
  if (command.gpuTypeId && command.gpuTypeId !== GPU) {
    throw new DomainError(ErrorCode.ValidationFailed, `unknown GPU type ${command.gpuTypeId}`);
  }
  return {
    podId: command.podId,
    hostId: command.hostId ?? `host-of-${command.podId}`,
    dataCenterId: 'EU-RO-1',
    publicIp: '198.51.100.7',
    gpuTypeId: command.gpuTypeId ?? null,
    gpuCount: command.gpuCount,
    portMappings: Object.fromEntries(command.ports.map((port, i) => [port, 40000 + i])),
    rates: {
      computePerHr: RATES.perGpuHr * command.gpuCount,
      containerDiskPerGbHr: RATES.containerDiskPerGbHr,
    },
  };
}

/** A member of a cluster as the scheduler's `cluster.evt.created` describes it: pod `<clusterId>-pod-<rank>`. */
export function clusterMember(clusterId: string, rank: number): ClusterCreatedEvent['members'][number] {
  return {
    podId: `${clusterId}-pod-${rank}`,
    rank,
    role: rank === 0 ? 'primary' : 'node',
    name: `member-${rank}`,
    placement: {
      podId: `${clusterId}-pod-${rank}`,
      hostId: 'host-0',
      dataCenterId: 'EU-RO-1',
      publicIp: '198.51.100.1',
      gpuTypeId: GPU,
      gpuCount: 8,
      portMappings: {},
    },
    image: 'runpod/pytorch:2.4.0',
    env: {},
    ports: [],
    disk: 50,
    startJupyter: false,
    overlayIp: `10.128.0.${rank + 1}`,
  };
}

export interface PodLifecycleOptions {
  /** CATALOG_TEMPLATES_FILE (the app's own catalog by default). */
  catalogFile?: string;
  /** HOST_START_FAILURES (the app's default, 3, unless given). */
  hostStartFailures?: number;
}

/**
 * pod-lifecycle's handlers, commands and queries, wired as its modules wire them over its real schema
 * (HandlerHarness), for the medium tests beside them: the scheduler stood in for (`scheduler`, its reserve
 * answered by `reserve` above), other apps' queries answered by `queries` (none by default).
 */
export class PodLifecycleHandlers {
  private constructor(
    readonly harness: HandlerHarness,
    readonly scheduler: StandInCommands,
    readonly queries: InProcessQueries,
    readonly registryAuths: RegistryAuthRepository,
    /** The settings the handlers were built with. */
    readonly config: PodLifecycleConfig,
  ) {}

  static async start(label: string, options: PodLifecycleOptions = {}): Promise<PodLifecycleHandlers> {
    const harness = await HandlerHarness.start(label, 'pod-lifecycle', DATA_SOURCE_SPEC);
    const { dataSource } = harness;
    const scheduler = new StandInCommands().answer(Subjects.placement.reserve, reserve);
    const queries = new InProcessQueries();
    const commands = scheduler.asBus();
    const config = new PodLifecycleConfig();
    if (options.catalogFile) config.CATALOG_TEMPLATES_FILE = options.catalogFile;
    if (options.hostStartFailures) config.HOST_START_FAILURES = options.hostStartFailures;
    const catalog = new CatalogTemplates(config);
    catalog.onModuleInit();
    const pods = new PodRepository(dataSource);
    const templates = new TemplateRepository(dataSource);
    const registryAuths = new RegistryAuthRepository(dataSource);
    const usageRepository = new PodUsageRepository(dataSource);
    const usage = new PodUsage(usageRepository);
    const spend = new SpendLedger(new SpendLimitsRepository(dataSource), usageRepository, queries.asBus());
    const transitions = new PodTransitions(pods, commands, usage, spend, registryAuths);
    const deletedClusters = new DeletedClustersRepository();
    harness.register(
      new CreatePodHandler(pods, templates, registryAuths, commands, catalog, usage, spend),
      new StartPodHandler(transitions),
      new StopPodHandler(transitions),
      new ResetPodHandler(transitions),
      new TerminatePodHandler(transitions),
      new UpdatePodHandler(pods, registryAuths, transitions, usage),
      new ObservePodHandler(
        pods,
        transitions,
        new HostStartFailures(new HostStartFailuresRepository(), config),
      ),
      new HostFailedHandler(pods, transitions),
      new HostLostHandler(pods, transitions),
      new HostNoticeHandler(pods),
      new HostDrainedHandler(pods, transitions),
      // Its command only, as the cluster handlers below.
      new PreemptPodsHandler(pods, transitions, commands),
      new SealPodEnvHandler(pods),
      // Their commands only: the events they react to are another app's, never delivered here.
      new CreateClusterMembersHandler(pods, usage, transitions, deletedClusters, commands),
      new TerminateClusterMembersHandler(pods, transitions, deletedClusters, commands),
      new GetPodHandler(pods),
      new ListPodsHandler(pods, new PodV2ViewCache()),
      new ListPodsByClusterHandler(pods),
      new ListPodStatesHandler(pods),
      new ListWorkerRunsHandler(pods),
      new PodUsageHandler(usageRepository),
      new CreateRegistryAuthHandler(registryAuths),
      new UpdateRegistryAuthHandler(registryAuths),
      new DeleteRegistryAuthHandler(registryAuths, templates, pods),
      new GetRegistryAuthHandler(registryAuths),
      new ListRegistryAuthHandler(registryAuths),
      new CreateTemplateHandler(templates, registryAuths),
      new UpdateTemplateHandler(templates, registryAuths, catalog),
      new DeleteTemplateHandler(templates, pods, catalog, registryAuths),
      new GetTemplateHandler(templates, catalog),
      new ListTemplatesHandler(templates),
      new ListCatalogTemplatesHandler(catalog),
      new SetSpendLimitHandler(new SpendLimitsRepository(dataSource)),
      new SpendStatusHandler(spend),
    );
    return new PodLifecycleHandlers(harness, scheduler, queries, registryAuths, config);
  }

  /** A GPU pod through `pod.cmd.create` (placed by the stand-in): one GPU, port 8888/http, unless `extra` says. */
  createPod(name: string, extra: Record<string, unknown> = {}, options: SendOptions = {}): Promise<PodView> {
    return this.harness.send(
      Subjects.pod.create,
      {
        name,
        imageName: 'alpine:3',
        gpuTypeId: GPU,
        gpuCount: 1,
        ports: ['8888/http'],
        env: { MODE: 'test' },
        ...extra,
      },
      options,
    );
  }

  /** A registry credential through `registry-auth.cmd.create`. */
  createCredential(name: string, options: SendOptions = {}): Promise<RegistryAuthView> {
    return this.harness.send(
      Subjects.registryAuth.create,
      { name, username: 'robot', passwordSealed: SEALED },
      options,
    );
  }

  /** A template through `template.cmd.create`: image alpine:3 unless `extra` says. */
  createTemplate(
    name: string,
    extra: Record<string, unknown> = {},
    options: SendOptions = {},
  ): Promise<TemplateView> {
    return this.harness.send(Subjects.template.create, { name, imageName: 'alpine:3', ...extra }, options);
  }

  /** A cluster's members through `pod.cmd.create-cluster-members` (as pod-lifecycle records it on the event). */
  createClusterMembers(clusterId: string, ownerId: string, ranks: number[], options: SendOptions = {}) {
    const cluster = { clusterId, ownerId, members: ranks.map((rank) => clusterMember(clusterId, rank)) };
    return this.harness.send(Subjects.pod.createClusterMembers, { cluster }, { actor: SYSTEM, ...options });
  }

  /** The pod's current run (`generation`), which an observation must name. */
  async generation(podId: string): Promise<number> {
    const [row] = await this.harness.dataSource.query<{ generation: number }[]>(
      'SELECT generation FROM pod_lifecycle.pods WHERE id = $1',
      [podId],
    );
    return row.generation;
  }

  stop(): Promise<void> {
    return this.harness.stop();
  }
}
