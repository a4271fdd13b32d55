import { IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString } from 'class-validator';
import {
  CreateTemplateDto,
  TEMPLATE_SOURCES,
  UpdateTemplateDto,
  type TemplateSource,
} from './template.dto.js';

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

/**
 * A user sees their own templates and the catalog's public ones; a system actor (the scheduler, the autoscaler)
 * any template.
 */
export class GetTemplateQuery {
  @IsString()
  @IsNotEmpty()
  id: string;

  /** The caller is about to change or delete the template: a catalog template answers 403 (it is the operator's). */
  @IsOptional()
  @IsBoolean()
  change?: boolean;
}

/** `template.qry.catalog`: the public templates of the operator's catalog, one slice of it. */
export class ListCatalogTemplatesQuery {
  @IsIn(TEMPLATE_SOURCES)
  source: TemplateSource;
}
