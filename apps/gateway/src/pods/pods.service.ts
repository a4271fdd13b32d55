import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  type Actor,
  type CreatePodCommand,
  type CreatePodDto,
  type PodAction,
  type PodView,
  type PublishedPodAction,
  type UpdatePodV2Dto,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
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

  /** `GET /v2/pods`: cluster members only with `includeClusterPods`. */
  listStandalone(includeClusterPods: boolean, actor: Actor): Promise<PodView[]> {
    return this.queries.query(Subjects.pod.list, includeClusterPods ? {} : { standaloneOnly: true }, actor);
  }

  /**
   * `POST /v2/pods/{id}/action` and `DELETE /v2/pods/{id}`: the action only if it is one of the pod's published
   * `actions` (409 otherwise, a cluster member's terminate included).
   */
  act(podId: string, action: PublishedPodAction, actor: Actor): Promise<PodView> {
    return this.commands.execute(V2_SUBJECTS[action], { podId, publishedOnly: true }, actor);
  }

  /** `PATCH /v2/pods/{id}`: name and mount path; pod-lifecycle applies the interface's mount update rules. */
  update(podId: string, dto: UpdatePodV2Dto, actor: Actor): Promise<PodView> {
    return this.commands.execute(Subjects.pod.update, { ...dto, podId }, actor);
  }

  /** `GET /v2/pods/{id}/logs`: a pod exists (404/403 otherwise) but its logs are not served yet. */
  async logs(podId: string, actor: Actor): Promise<never> {
    await this.get(podId, actor);
    throw new DomainError(ErrorCode.NotAvailable, 'pod logs are not available in this deployment yet');
  }

  list(includeTerminated: boolean, actor: Actor): Promise<PodView[]> {
    return this.queries.query(Subjects.pod.list, includeTerminated ? { includeTerminated } : {}, actor);
  }

  get(podId: string, actor: Actor): Promise<PodView> {
    return this.queries.query(Subjects.pod.get, { podId }, actor);
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
}

const V2_SUBJECTS: Record<PublishedPodAction, (typeof Subjects.pod)[PodAction]> = {
  start: Subjects.pod.start,
  stop: Subjects.pod.stop,
  restart: Subjects.pod.reset,
  terminate: Subjects.pod.terminate,
};
