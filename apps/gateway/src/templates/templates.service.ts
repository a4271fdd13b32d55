import { Injectable } from '@nestjs/common';
import { Subjects, type Actor, type CreateTemplateDto, type TemplateView } from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';

/** Templates, owned by pod-lifecycle. */
@Injectable()
export class TemplatesService {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  create(dto: CreateTemplateDto, actor: Actor): Promise<TemplateView> {
    return this.commands.execute(Subjects.template.create, { ...dto }, actor);
  }

  list(actor: Actor): Promise<TemplateView[]> {
    return this.queries.query(Subjects.template.list, {}, actor);
  }

  get(id: string, actor: Actor): Promise<TemplateView> {
    return this.queries.query(Subjects.template.get, { id }, actor);
  }

  async delete(id: string, actor: Actor): Promise<void> {
    await this.commands.execute(Subjects.template.delete, { id }, actor);
  }
}
