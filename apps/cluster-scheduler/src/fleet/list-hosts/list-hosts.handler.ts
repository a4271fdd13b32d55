import { Injectable } from '@nestjs/common';
import { Subjects, type HostListView, type ListHostsQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { FleetViewsRepository } from '../fleet-views.repository.js';
import { toHostView } from '../host.mapper.js';

/** Hosts on a page if none is asked. */
const DEFAULT_LIMIT = 100;

/** `fleet.qry.list-hosts`: the hosts by id, filtered, one page at a time (`after` the last id of the page before). */
@Injectable()
export class ListHostsHandler {
  constructor(private readonly views: FleetViewsRepository) {}

  @QueryHandler(Subjects.fleet.listHosts)
  async handle(ctx: QueryContext<ListHostsQuery>): Promise<HostListView> {
    const limit = ctx.payload.limit ?? DEFAULT_LIMIT;
    const rows = await this.views.list({ ...ctx.payload, limit });
    const page = rows.slice(0, limit);
    return {
      hosts: page.map(toHostView),
      next: rows.length > limit ? page[page.length - 1].id : null,
    };
  }
}
