import { Args, Mutation, Resolver } from '@nestjs/graphql';
import type { Actor } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { TemplatesService } from '../templates/templates.service.js';
import { SaveTemplateInput } from './inputs/template.input.js';
import { TemplateModel } from './models/template.model.js';
import { toTemplateFields, toTemplateModel, toTemplateUpdate } from './template.mapper.js';

/** The Python SDK's template documents, on the service behind `/v1/templates` and `/v2/templates`. */
@Auth({ key: 'query-or-bearer' })
@Resource('templates')
@Resolver()
export class TemplatesResolver {
  constructor(private readonly templates: TemplatesService) {}

  @Mutation(() => TemplateModel, { description: 'Creates a template, or updates it when input.id is set' })
  async saveTemplate(
    @Args('input') input: SaveTemplateInput,
    @CurrentActor() actor: Actor,
  ): Promise<TemplateModel> {
    const view = input.id
      ? await this.templates.update(input.id, toTemplateUpdate(input), actor)
      : await this.templates.create(toTemplateFields(input), actor);
    return toTemplateModel(view);
  }

  @Mutation(() => Boolean, {
    nullable: true,
    description: 'Deletes the template of this name unless a pod or endpoint uses it; answers null',
  })
  async deleteTemplate(
    @Args('templateName', { type: () => String }) name: string,
    @CurrentActor() actor: Actor,
  ): Promise<null> {
    await this.templates.deleteByName(name, actor);
    return null;
  }
}
