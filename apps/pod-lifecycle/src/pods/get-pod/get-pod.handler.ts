import { Injectable } from '@nestjs/common';
import { Subjects, type GetPodQuery, type PodView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { ownedPod } from '../pod.access.js';
import { toPodView } from '../pod.mapper.js';
import { PodRepository } from '../pod.repository.js';

@Injectable()
export class GetPodHandler {
  constructor(private readonly pods: PodRepository) {}

  @QueryHandler(Subjects.pod.get)
  async handle(ctx: QueryContext<GetPodQuery>): Promise<PodView> {
    const { podId, withSecrets } = ctx.payload;
    return toPodView(ownedPod(await this.pods.findById(podId), podId, ctx.actor), { secrets: withSecrets });
  }
}
