import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CreateTemplateDto, type Actor, type TemplateView } from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { TemplatesService } from './templates.service.js';

@Auth({ key: 'bearer' })
@Controller('v1/templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Post()
  @HttpCode(201)
  create(@Body() dto: CreateTemplateDto, @CurrentActor() actor: Actor): Promise<TemplateView> {
    return this.templates.create(dto, actor);
  }

  @Get()
  list(@CurrentActor() actor: Actor): Promise<TemplateView[]> {
    return this.templates.list(actor);
  }

  @Get(':templateId')
  get(@Param('templateId') id: string, @CurrentActor() actor: Actor): Promise<TemplateView> {
    return this.templates.get(id, actor);
  }

  /** 204; 400 while a pod uses the template. */
  @Delete(':templateId')
  @HttpCode(204)
  delete(@Param('templateId') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.templates.delete(id, actor);
  }
}
