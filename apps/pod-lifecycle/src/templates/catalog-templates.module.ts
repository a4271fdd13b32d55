import { Module } from '@nestjs/common';
import { CatalogTemplates } from './catalog-templates.js';

/** The catalog's public templates, read by the template use cases and by pod creation (one instance, one load). */
@Module({ providers: [CatalogTemplates], exports: [CatalogTemplates] })
export class CatalogTemplatesModule {}
