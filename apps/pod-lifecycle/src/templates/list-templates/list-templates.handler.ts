import { Injectable } from '@nestjs/common';
import { Subjects, type ListTemplatesQuery, type TemplateView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { toTemplateView } from '../template.mapper.js';
import { TemplateRepository } from '../template.repository.js';

@Injectable()
export class ListTemplatesHandler {
  constructor(private readonly templates: TemplateRepository) {}

  @QueryHandler(Subjects.template.list)
  async handle(ctx: QueryContext<ListTemplatesQuery>): Promise<TemplateView[]> {
    return (await this.templates.listByOwner(ctx.actor.userId)).map(toTemplateView);
  }
}
