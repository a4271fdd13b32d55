import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { CreateTemplateDto, TEMPLATE_SOURCES, validatePlain, type TemplateSource } from '@app/contracts';

/**
 * A catalog id: lower-case words joined by dashes, at least two (`runpod-torch-v21`). Ids of users' templates are
 * derived from commands and never contain a dash, so the two can never name the same template.
 */
export const CATALOG_TEMPLATE_ID = /^[a-z0-9]+(-[a-z0-9]+)+$/;

/**
 * One public template: the fields of `POST /v1/templates` (RunPod's REST names: imageName, dockerArgs,
 * containerDiskInGb, ports, env, volumeMountPath, isServerless, readme), plus its id, its slice of the catalog
 * and, optionally, when it was published.
 */
export class CatalogTemplateEntry extends CreateTemplateDto {
  @Matches(CATALOG_TEMPLATE_ID, {
    message: 'id must be lower-case words joined by dashes, e.g. runpod-torch-v21',
  })
  @MaxLength(64)
  id: string;

  /** `official` when absent. */
  @IsOptional()
  @IsIn(TEMPLATE_SOURCES)
  source?: TemplateSource;

  /** ISO 8601; the file's modification time when absent. */
  @IsOptional()
  @IsISO8601({ strict: true })
  createdAt?: string;
}

/** The catalog templates file (JSON): `{"version": 1, "templates": [...]}`. */
export class CatalogTemplatesFile {
  @IsInt()
  @Min(1)
  @Max(1)
  version: number;

  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => CatalogTemplateEntry)
  templates: CatalogTemplateEntry[];
}

/** Parses and checks the file; throws one error naming every fault (and the file). */
export function parseCatalogTemplates(text: string, source: string): CatalogTemplateEntry[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`CATALOG_TEMPLATES_FILE ${source} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const validated = validatePlain(CatalogTemplatesFile, raw);
  if (!validated.ok) {
    throw new Error(
      `CATALOG_TEMPLATES_FILE ${source} is invalid: ${validated.errors.slice(0, 10).join('; ')}`,
    );
  }
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const entry of validated.value.templates) {
    if (seen.has(entry.id)) problems.push(`template ${entry.id} appears twice`);
    seen.add(entry.id);
    // A credential is a user's secret: a template everyone may start from cannot pull with one.
    if (entry.containerRegistryAuthId !== undefined) {
      problems.push(`template ${entry.id}: containerRegistryAuthId is not allowed (public images only)`);
    }
  }
  if (problems.length) {
    throw new Error(`CATALOG_TEMPLATES_FILE ${source} is invalid: ${problems.join('; ')}`);
  }
  return validated.value.templates;
}
