import { Injectable } from '@nestjs/common';
import { Subjects, type Actor, type CreatePodDto, type PodView } from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';

/** Pods, owned by pod-lifecycle: every route is one command or query with the caller as actor. */
@Injectable()
export class PodsService {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  create(dto: CreatePodDto, actor: Actor): Promise<PodView> {
    return this.commands.execute(Subjects.pod.create, { ...dto }, actor);
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
