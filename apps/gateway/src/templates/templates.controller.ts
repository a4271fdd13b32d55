import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CreateTemplateDto, UpdateTemplateDto, type Actor, type TemplateView } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { TemplatesService } from './templates.service.js';

@ApiTags('Templates')
@Auth({ key: 'bearer' })
@Resource('templates')
@Controller('v1/templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Post()
  @HttpCode(201)
  @Operation('Create a template', {
    returns: 'TemplateView',
    description: 'Pods and serverless endpoints (isServerless) are created from templates.',
    errors: {
      404: 'containerRegistryAuthId names no credential of yours',
      409: 'you already have a template with this name',
    },
  })
  create(@Body() dto: CreateTemplateDto, @CurrentActor() actor: Actor): Promise<TemplateView> {
    return this.templates.create(dto, actor);
  }

  @Get()
  @Operation("List the caller's templates", { returns: 'TemplateView', array: true })
  list(@CurrentActor() actor: Actor): Promise<TemplateView[]> {
    return this.templates.list(actor);
  }

  @Get(':templateId')
  @Operation('Get a template', {
    returns: 'TemplateView',
    description:
      'One of yours, or a public template of the catalog (`isPublic: true`), which no user may change or delete (403).',
  })
  get(@Param('templateId') id: string, @CurrentActor() actor: Actor): Promise<TemplateView> {
    return this.templates.get(id, actor);
  }

  @Patch(':templateId')
  @Operation('Update a template', {
    returns: 'TemplateView',
    description: 'Only the fields present change; pods and endpoints already created keep what they copied.',
    errors: {
      404: 'containerRegistryAuthId names no credential of yours',
      409: 'you already have a template with this name',
    },
  })
  update(
    @Param('templateId') id: string,
    @Body() dto: UpdateTemplateDto,
    @CurrentActor() actor: Actor,
  ): Promise<TemplateView> {
    return this.templates.update(id, dto, actor);
  }

  /** 204; 400 while a pod uses the template. */
  @Delete(':templateId')
  @HttpCode(204)
  @Operation('Delete a template', {
    errors: { 400: 'a pod or a serverless endpoint still uses the template' },
  })
  delete(@Param('templateId') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.templates.delete(id, actor);
  }
}
