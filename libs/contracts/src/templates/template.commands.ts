import { IsNotEmpty, IsString } from 'class-validator';
import { CreateTemplateDto, UpdateTemplateDto } from './template.dto.js';

/** `template.cmd.create`: same fields as the REST body. */
export class CreateTemplateCommand extends CreateTemplateDto {}

/** `template.cmd.update`: the fields of `PATCH /v1/templates/{id}` that are present, for the template `id`. */
export class UpdateTemplateCommand extends UpdateTemplateDto {
  @IsString()
  @IsNotEmpty()
  id: string;
}

export class DeleteTemplateCommand {
  @IsString()
  @IsNotEmpty()
  id: string;
}

export class ListTemplatesQuery {}

/** A user sees their own templates; a system actor (the scheduler, the autoscaler) any template. */
export class GetTemplateQuery {
  @IsString()
  @IsNotEmpty()
  id: string;
}
