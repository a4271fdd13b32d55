import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  maskEnv,
  toPodV2View,
  type Actor,
  type ClusterView,
  type CreateClusterDto,
  type PodV2List,
  type PodView,
  type UpdateClusterDto,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
import { SshKeysService } from '../ssh-keys/ssh-keys.service.js';
import { memberToPodV2View } from './cluster-member-v2.view.js';

/** Clusters, owned by cluster-scheduler; the gateway adds the caller's SSH keys when `startSsh` is set. */
@Injectable()
export class ClustersService {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly sshKeys: SshKeysService,
  ) {}

  async create(dto: CreateClusterDto, actor: Actor): Promise<ClusterView> {
    const sshPublicKeys = dto.startSsh ? await this.sshKeys.publicKeysOf(actor.userId) : undefined;
    return this.commands.execute(
      Subjects.cluster.create,
      { ...dto, ...(sshPublicKeys ? { sshPublicKeys } : {}) },
      actor,
    );
  }

  list(actor: Actor): Promise<ClusterView[]> {
    return this.queries.query(Subjects.cluster.list, {}, actor);
  }

  get(id: string, actor: Actor): Promise<ClusterView> {
    return this.queries.query(Subjects.cluster.get, { id }, actor);
  }

  /**
   * `PATCH /v2/clusters/{id}`: a rename, recorded and applied by cluster-scheduler, then the cluster as it is now
   * (the command answers its id and name only: member counts are no part of what it decides).
   */
  async rename(id: string, dto: UpdateClusterDto, actor: Actor): Promise<ClusterView> {
    await this.commands.execute(Subjects.cluster.rename, { ...dto, id }, actor);
    return this.get(id, actor);
  }

  /**
   * The full member pods as v2 pods, in rank order: pod-lifecycle's pods where it has created them, the
   * scheduler's placement record in the same shape for members it has not created yet or while it does not answer.
   * Env secrets in clear with `secrets` (a full key), masked otherwise, whichever app answered.
   */
  async pods(id: string, actor: Actor, secrets = false): Promise<PodV2List> {
    const members = await this.queries.query(Subjects.cluster.listMembers, { id }, actor);
    let pods: PodView[] = [];
    try {
      const query = { clusterId: id, ...(secrets ? { withSecrets: true } : {}) };
      pods = await this.queries.query(Subjects.pod.listByCluster, query, actor);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== ErrorCode.OwnerUnavailable) throw error;
    }
    const byId = new Map(pods.map((p) => [p.id, p]));
    return {
      pods: members.map((m) => {
        const pod = byId.get(m.id);
        if (pod) return toPodV2View(pod);
        return memberToPodV2View(secrets ? m : { ...m, env: maskEnv(m.env) }, actor.userId);
      }),
    };
  }

  async delete(id: string, actor: Actor): Promise<void> {
    await this.commands.execute(Subjects.cluster.delete, { id }, actor);
  }
}
