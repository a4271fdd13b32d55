import { readFileSync } from 'node:fs';
import { type DynamicModule, Module } from '@nestjs/common';
import { OPENAPI_INTERFACES, openApiFile } from './openapi-files.js';
import { OPENAPI_DOCUMENTS, OpenApiController, type OpenApiDocumentTexts } from './openapi.controller.js';

/** Reads the committed descriptions once at boot; a missing one stops the gateway with a line saying why. */
function loadDocuments(dir: string): OpenApiDocumentTexts {
  const read = (iface: (typeof OPENAPI_INTERFACES)[number]): string => {
    const file = openApiFile(dir, iface);
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(
        `OPENAPI_DIR: cannot read ${file} (${(error as Error).message}); run \`npm run openapi\` or set OPENAPI_DIR`,
        { cause: error },
      );
    }
  };
  return { v1: read('v1'), v2: read('v2') };
}

/**
 * Serves the descriptions. openapi/ is a leaf: the controllers of every feature import its decorators, so it
 * imports nothing of the gateway (the directory comes from AppModule; the generator, which imports AppModule,
 * is in openapi-generator/, which nothing imports).
 */
@Module({})
export class OpenApiModule {
  /** `dir`: OPENAPI_DIR. */
  static forRoot(dir: string): DynamicModule {
    return {
      module: OpenApiModule,
      controllers: [OpenApiController],
      providers: [{ provide: OPENAPI_DOCUMENTS, useFactory: () => loadDocuments(dir) }],
    };
  }
}
