import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type GetHostQuery, type HostDetailView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { FleetViewsRepository } from '../fleet-views.repository.js';
import { toHostDetailView } from '../host.mapper.js';

/** `fleet.qry.get-host`: one host, with the pods holding capacity on it. */
@Injectable()
export class GetHostHandler {
  constructor(private readonly views: FleetViewsRepository) {}

  @QueryHandler(Subjects.fleet.getHost)
  async handle(ctx: QueryContext<GetHostQuery>): Promise<HostDetailView> {
    const found = await this.views.get(ctx.payload.hostId);
    if (!found) {
      throw new DomainError(ErrorCode.NotFound, `host ${ctx.payload.hostId} is not a host of the fleet`);
    }
    return toHostDetailView(found.host, found.pods);
  }
}
