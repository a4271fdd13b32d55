import { Injectable } from '@nestjs/common';
import {
  Subjects,
  type Actor,
  type CreatePodCommand,
  type CreatePodDto,
  type PodAction,
  type PodDetailsView,
  type PodMachineView,
  type PodV2List,
  type PodView,
  type PublishedPodAction,
  type UpdatePodCommand,
  type UpdatePodDto,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
import { CatalogService } from '../catalog/catalog.service.js';
import { NetworkVolumesService } from '../network-volumes/network-volumes.service.js';
import type { JsonBody } from '../edge/json-body.js';
import { listAllPods, podsV2Body } from '../owner-queries/pod-pages.js';
import { SshKeysService } from '../ssh-keys/ssh-keys.service.js';

/**
 * Pods, owned by pod-lifecycle: every route of /v1, /v2 and GraphQL is one command or query with the caller as
 * actor. The v2 ones set `publishedOnly`/`standaloneOnly` and pod-lifecycle applies those rules.
 */
@Injectable()
export class PodsService {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly sshKeys: SshKeysService,
    private readonly catalog: CatalogService,
    private readonly volumes: NetworkVolumesService,
  ) {}

  /** With `startSsh` (v2) the account's public keys go along: pod-lifecycle does not read the gateway's tables. */
  async create(dto: CreatePodDto | CreatePodCommand, actor: Actor): Promise<PodView> {
    const sshPublicKeys =
      'startSsh' in dto && dto.startSsh ? await this.sshKeys.publicKeysOf(actor.userId) : undefined;
    return this.commands.execute(
      Subjects.pod.create,
      { ...dto, ...(sshPublicKeys ? { sshPublicKeys } : {}) },
      actor,
    );
  }

  /**
   * `GET /v2/pods`'s body (cluster members only with `includeClusterPods`): pod-lifecycle's v2 pages passed through
   * as they were serialized (podsV2Body).
   */
  listStandaloneV2(includeClusterPods: boolean, actor: Actor, secrets = false): Promise<JsonBody<PodV2List>> {
    return podsV2Body(
      this.queries,
      { ...(includeClusterPods ? {} : { standaloneOnly: true }), ...withSecrets(secrets) },
      actor,
    );
  }

  /**
   * `POST /v2/pods/{id}/action` and `DELETE /v2/pods/{id}`: the action only if it is one of the pod's published
   * `actions` (409 otherwise, a cluster member's terminate included).
   */
  act(podId: string, action: PublishedPodAction, actor: Actor): Promise<PodView> {
    return this.commands.execute(V2_SUBJECTS[action], { podId, publishedOnly: true }, actor);
  }

  /**
   * `PATCH /v1/pods/{id}` and `PATCH /v2/pods/{id}`: one command, and pod-lifecycle applies every rule (the
   * interface's mount update rules, a restart when a RUNNING pod's container changes).
   */
  update(podId: string, dto: UpdatePodDto | Omit<UpdatePodCommand, 'podId'>, actor: Actor): Promise<PodView> {
    return this.commands.execute(Subjects.pod.update, { ...dto, podId }, actor);
  }

  /**
   * Reads take `secrets` (SecretsReadable: a full key) for the env's secret-looking values in clear, masked
   * otherwise; answers to commands stay masked (they are kept with the command's record).
   */
  list(includeTerminated: boolean, actor: Actor, secrets = false): Promise<PodView[]> {
    return listAllPods(
      this.queries,
      { ...(includeTerminated ? { includeTerminated } : {}), ...withSecrets(secrets) },
      actor,
    );
  }

  get(podId: string, actor: Actor, secrets = false): Promise<PodView> {
    return this.queries.query(Subjects.pod.get, { podId, ...withSecrets(secrets) }, actor);
  }

  /**
   * `GET /v1/pods/{id}` with RunPod's includes: the host as cluster-scheduler's catalog describes it, and the
   * network volume (null when the pod has none, or once it is gone).
   */
  async details(
    podId: string,
    include: { machine: boolean; networkVolume: boolean },
    actor: Actor,
    secrets = false,
  ): Promise<PodDetailsView> {
    const pod = await this.get(podId, actor, secrets);
    const [machine, networkVolume] = await Promise.all([
      include.machine ? this.machineOf(pod, actor) : pod.machine,
      include.networkVolume && pod.networkVolumeId ? this.volumes.find(pod.networkVolumeId, actor) : null,
    ]);
    return { ...pod, machine, ...(include.networkVolume ? { networkVolume } : {}) };
  }

  start(podId: string, actor: Actor): Promise<PodView> {
    return this.commands.execute(Subjects.pod.start, { podId }, actor);
  }

  stop(podId: string, actor: Actor): Promise<PodView> {
    return this.commands.execute(Subjects.pod.stop, { podId }, actor);
  }

  reset(podId: string, actor: Actor): Promise<PodView> {
    return this.commands.execute(Subjects.pod.reset, { podId }, actor);
  }

  async terminate(podId: string, actor: Actor): Promise<void> {
    await this.commands.execute(Subjects.pod.terminate, { podId }, actor);
  }

  /** Only what the catalog knows: this deployment keeps no prices, speeds or maintenance windows of hosts. */
  private async machineOf(pod: PodView, actor: Actor): Promise<PodMachineView> {
    const [gpuTypes, dataCenters] = await Promise.all([
      pod.gpuTypeId ? this.catalog.gpuTypes(actor) : [],
      pod.dataCenterId ? this.catalog.dataCenters(actor) : [],
    ]);
    const gpu = gpuTypes.find((type) => type.id === pod.gpuTypeId);
    return {
      ...pod.machine,
      podHostId: pod.machineId,
      gpuDisplayName: gpu?.displayName ?? null,
      gpuMemoryInGb: gpu?.memoryInGb ?? null,
      cpuTypeId: pod.cpuFlavorId,
      location: dataCenters.find((dc) => dc.id === pod.dataCenterId)?.region ?? null,
    };
  }
}

/** The queries' `withSecrets`, sent only when asked for (the default masks). */
function withSecrets(secrets: boolean): { withSecrets?: true } {
  return secrets ? { withSecrets: true } : {};
}

const V2_SUBJECTS: Record<PublishedPodAction, (typeof Subjects.pod)[PodAction]> = {
  start: Subjects.pod.start,
  stop: Subjects.pod.stop,
  restart: Subjects.pod.reset,
  terminate: Subjects.pod.terminate,
};
