import { Module } from '@nestjs/common';
import { TemplatesV2Controller } from './templates-v2.controller.js';
import { TemplatesController } from './templates.controller.js';
import { TemplatesService } from './templates.service.js';

@Module({
  controllers: [TemplatesController, TemplatesV2Controller],
  providers: [TemplatesService],
  exports: [TemplatesService],
})
export class TemplatesModule {}
