import { Injectable } from '@nestjs/common';
import { Subjects, type GetTemplateQuery, type TemplateView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { CatalogTemplates, toCatalogTemplateView } from '../catalog-templates.js';
import { catalogTemplateIsReadOnly, ownedTemplate } from '../template.access.js';
import { toTemplateView } from '../template.mapper.js';
import { TemplateRepository } from '../template.repository.js';

/** One of the actor's templates, or a public one of the catalog (403 when asked `change`: it is read-only). */
@Injectable()
export class GetTemplateHandler {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly catalog: CatalogTemplates,
  ) {}

  @QueryHandler(Subjects.template.get)
  async handle(ctx: QueryContext<GetTemplateQuery>): Promise<TemplateView> {
    const { id, change } = ctx.payload;
    const listed = await this.catalog.find(id);
    if (listed) {
      if (change) throw catalogTemplateIsReadOnly(id);
      return toCatalogTemplateView(listed);
    }
    return toTemplateView(ownedTemplate(await this.templates.findById(id), id, ctx.actor));
  }
}
