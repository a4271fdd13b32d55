import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  type Actor,
  type ClusterMemberView,
  type ClusterView,
  type CreateClusterDto,
  type PodView,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
import { SshKeysService } from '../ssh-keys/ssh-keys.service.js';

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
   * The full member pods, in rank order: pod-lifecycle's pods where it has created them, the scheduler's
   * placement record (the same field names, fewer of them) for members it has not created yet or while it does
   * not answer.
   */
  async pods(id: string, actor: Actor): Promise<(PodView | ClusterMemberView)[]> {
    const members = await this.queries.query(Subjects.cluster.listMembers, { id }, actor);
    let pods: PodView[] = [];
    try {
      pods = await this.queries.query(Subjects.pod.listByCluster, { clusterId: id }, actor);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== ErrorCode.OwnerUnavailable) throw error;
    }
    const byId = new Map(pods.map((p) => [p.id, p]));
    return members.map((m) => byId.get(m.id) ?? m);
  }

  async delete(id: string, actor: Actor): Promise<void> {
    await this.commands.execute(Subjects.cluster.delete, { id }, actor);
  }
}
