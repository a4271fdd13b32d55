import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  type Actor,
  type CreateTemplateDto,
  type TemplateView,
  type UpdateTemplateDto,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';

/** Templates, owned by pod-lifecycle: the use cases behind /v1/templates, /v2/templates and GraphQL. */
@Injectable()
export class TemplatesService {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  create(dto: CreateTemplateDto, actor: Actor): Promise<TemplateView> {
    return this.commands.execute(Subjects.template.create, { ...dto }, actor);
  }

  /** Changes the fields present in `dto` (PATCH). */
  update(id: string, dto: UpdateTemplateDto, actor: Actor): Promise<TemplateView> {
    return this.commands.execute(Subjects.template.update, { ...dto, id }, actor);
  }

  list(actor: Actor): Promise<TemplateView[]> {
    return this.queries.query(Subjects.template.list, {}, actor);
  }

  /** One of the caller's templates, or a public one of the catalog. */
  get(id: string, actor: Actor): Promise<TemplateView> {
    return this.queries.query(Subjects.template.get, { id }, actor);
  }

  /**
   * 404 or 403 from the owner first (so a foreign, unknown or catalog id never reaches the next question), then
   * 400 while one of the caller's serverless endpoints names the template, then the owner's delete, which refuses
   * while a pod uses it. Endpoints are endpoint-autoscaler's: a cross-app check is the gateway's, before the
   * command, as for saveEndpoint.
   */
  async delete(id: string, actor: Actor): Promise<void> {
    await this.queries.query(Subjects.template.get, { id, change: true }, actor);
    const endpoint = (await this.queries.query(Subjects.endpoint.list, {}, actor)).find(
      (e) => e.templateId === id,
    );
    if (endpoint) {
      throw new DomainError(
        ErrorCode.InUse,
        `template ${id} is used by serverless endpoint ${endpoint.id}; delete the endpoint first`,
      );
    }
    await this.commands.execute(Subjects.template.delete, { id }, actor);
  }

  /** GraphQL `deleteTemplate(templateName:)`: names are unique per owner, so the name finds one template. */
  async deleteByName(name: string, actor: Actor): Promise<void> {
    const template = (await this.list(actor)).find((t) => t.name === name);
    if (!template) throw DomainError.notFound('template', name);
    await this.delete(template.id, actor);
  }
}
