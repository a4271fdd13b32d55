import { Module } from '@nestjs/common';
import { PersistenceModule } from '../persistence.module.js';
import { CatalogTemplatesModule } from './catalog-templates.module.js';
import { CreateTemplateHandler } from './create-template/create-template.handler.js';
import { DeleteTemplateHandler } from './delete-template/delete-template.handler.js';
import { GetTemplateHandler } from './get-template/get-template.handler.js';
import { ListCatalogTemplatesHandler } from './list-catalog-templates/list-catalog-templates.handler.js';
import { ListTemplatesHandler } from './list-templates/list-templates.handler.js';
import { UpdateTemplateHandler } from './update-template/update-template.handler.js';

@Module({
  imports: [PersistenceModule, CatalogTemplatesModule],
  providers: [
    CreateTemplateHandler,
    UpdateTemplateHandler,
    DeleteTemplateHandler,
    GetTemplateHandler,
    ListTemplatesHandler,
    ListCatalogTemplatesHandler,
  ],
})
export class TemplatesModule {}
