import { readFileSync } from 'node:fs';
import { Module } from '@nestjs/common';
import { GatewayConfig } from '../gateway.config.js';
import { OPENAPI_INTERFACES, openApiFile } from './openapi-files.js';
import { OPENAPI_DOCUMENTS, OpenApiController, type OpenApiDocumentTexts } from './openapi.controller.js';

/** Reads the committed descriptions once at boot; a missing one stops the gateway with a line saying why. */
function loadDocuments(config: GatewayConfig): OpenApiDocumentTexts {
  const read = (iface: (typeof OPENAPI_INTERFACES)[number]): string => {
    const file = openApiFile(config.OPENAPI_DIR, iface);
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

@Module({
  controllers: [OpenApiController],
  providers: [{ provide: OPENAPI_DOCUMENTS, useFactory: loadDocuments, inject: [GatewayConfig] }],
})
export class OpenApiModule {}
