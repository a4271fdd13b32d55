import { Injectable } from '@nestjs/common';
import { Subjects, type ListCatalogTemplatesQuery, type TemplateView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { CatalogTemplates } from '../catalog-templates.js';

/** `/v2/catalog/templates`: one slice of the public catalog, the same for every caller. */
@Injectable()
export class ListCatalogTemplatesHandler {
  constructor(private readonly catalog: CatalogTemplates) {}

  @QueryHandler(Subjects.template.catalog)
  handle(ctx: QueryContext<ListCatalogTemplatesQuery>): Promise<TemplateView[]> {
    return this.catalog.list(ctx.payload.source);
  }
}
