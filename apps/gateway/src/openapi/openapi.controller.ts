import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '@app/platform';
import type { OpenApiInterface } from './openapi-files.js';

export const OPENAPI_DOCUMENTS = Symbol('gateway:openapi-documents');

/** The committed description of each interface, as the bytes of its file. */
export type OpenApiDocumentTexts = Record<OpenApiInterface, string>;

/** `/v1/openapi.json` and `/v2/openapi.json`: the committed OpenAPI descriptions, without a key. */
@ApiExcludeController()
@Public()
@Controller()
export class OpenApiController {
  constructor(@Inject(OPENAPI_DOCUMENTS) private readonly documents: OpenApiDocumentTexts) {}

  @Get('v1/openapi.json')
  @Header('Content-Type', 'application/json; charset=utf-8')
  v1(): string {
    return this.documents.v1;
  }

  @Get('v2/openapi.json')
  @Header('Content-Type', 'application/json; charset=utf-8')
  v2(): string {
    return this.documents.v2;
  }
}
