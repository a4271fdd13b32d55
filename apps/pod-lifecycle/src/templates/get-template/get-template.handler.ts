import { Injectable } from '@nestjs/common';
import { Subjects, type GetTemplateQuery, type TemplateView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { ownedTemplate } from '../template.access.js';
import { toTemplateView } from '../template.mapper.js';
import { TemplateRepository } from '../template.repository.js';

@Injectable()
export class GetTemplateHandler {
  constructor(private readonly templates: TemplateRepository) {}

  @QueryHandler(Subjects.template.get)
  async handle(ctx: QueryContext<GetTemplateQuery>): Promise<TemplateView> {
    const { id } = ctx.payload;
    return toTemplateView(ownedTemplate(await this.templates.findById(id), id, ctx.actor));
  }
}
