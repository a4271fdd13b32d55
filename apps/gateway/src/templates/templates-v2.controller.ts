import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  CreateTemplateV2Dto,
  UpdateTemplateV2Dto,
  type Actor,
  type TemplateList,
  type TemplateV2View,
} from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { fromCreateV2, fromUpdateV2, toTemplateV2View } from './template-v2.mapper.js';
import { TemplatesService } from './templates.service.js';

const IN_USE = 'a pod or a serverless endpoint still uses the template';
const REGISTRY = 'registry names no credential of yours';
const NAME_TAKEN = 'you already have a template with this name';

/** `/v2/templates` (management API v2): the templates of `/v1/templates` in RunPod's v2 field names. */
@ApiTags('Templates')
@Auth({ key: 'bearer' })
@Resource('templates')
@Controller('v2/templates')
export class TemplatesV2Controller {
  constructor(private readonly templates: TemplatesService) {}

  @Post()
  @HttpCode(201)
  @Operation('Create a template', { returns: 'TemplateV2View', errors: { 404: REGISTRY, 409: NAME_TAKEN } })
  async create(@Body() dto: CreateTemplateV2Dto, @CurrentActor() actor: Actor): Promise<TemplateV2View> {
    return toTemplateV2View(await this.templates.create(fromCreateV2(dto), actor));
  }

  @Get()
  @Operation("List the caller's templates", { returns: 'TemplateList' })
  async list(@CurrentActor() actor: Actor): Promise<TemplateList> {
    return { templates: (await this.templates.list(actor)).map(toTemplateV2View) };
  }

  @Get(':templateId')
  @Operation('Get a template', {
    returns: 'TemplateV2View',
    description:
      'One of yours, or a public template of the catalog (`public: true`), which no user may change or delete (403).',
  })
  async get(@Param('templateId') id: string, @CurrentActor() actor: Actor): Promise<TemplateV2View> {
    return toTemplateV2View(await this.templates.get(id, actor));
  }

  @Patch(':templateId')
  @Operation('Update a template', {
    returns: 'TemplateV2View',
    description: 'Only the fields present change; pods and endpoints already created keep what they copied.',
    errors: { 404: REGISTRY, 409: NAME_TAKEN },
  })
  async update(
    @Param('templateId') id: string,
    @Body() dto: UpdateTemplateV2Dto,
    @CurrentActor() actor: Actor,
  ): Promise<TemplateV2View> {
    return toTemplateV2View(await this.templates.update(id, fromUpdateV2(dto), actor));
  }

  @Delete(':templateId')
  @HttpCode(204)
  @Operation('Delete a template', { errors: { 400: IN_USE } })
  delete(@Param('templateId') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.templates.delete(id, actor);
  }
}
