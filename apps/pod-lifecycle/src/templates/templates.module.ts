import { Module } from '@nestjs/common';
import { PersistenceModule } from '../persistence.module.js';
import { CreateTemplateHandler } from './create-template/create-template.handler.js';
import { DeleteTemplateHandler } from './delete-template/delete-template.handler.js';
import { GetTemplateHandler } from './get-template/get-template.handler.js';
import { ListTemplatesHandler } from './list-templates/list-templates.handler.js';

@Module({
  imports: [PersistenceModule],
  providers: [CreateTemplateHandler, DeleteTemplateHandler, GetTemplateHandler, ListTemplatesHandler],
})
export class TemplatesModule {}
