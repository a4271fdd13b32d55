import { Injectable, Logger } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  type Actor,
  type CreateTemplateDto,
  type SaveEndpointCommand,
} from '@app/contracts';
import { TemplatesService } from '../templates/templates.service.js';
import { EndpointsService, type EndpointDetails } from './endpoints.service.js';

/**
 * A serverless endpoint created from an image (`POST /v2/serverless` with `image`): its serverless template first
 * (pod-lifecycle's command), then the endpoint naming it (endpoint-autoscaler's), each durable when it answers, so
 * both are before the 201. Two owners, no shared transaction: if the endpoint is refused, the template is
 * deleted again (its own recorded command), so a refusal leaves nothing half-written. An unanswered save may
 * still create the endpoint, so its template stays.
 */
@Injectable()
export class EndpointFromImageService {
  private readonly logger = new Logger('endpoints');

  constructor(
    private readonly endpoints: EndpointsService,
    private readonly templates: TemplatesService,
  ) {}

  async create(
    template: CreateTemplateDto,
    command: SaveEndpointCommand,
    actor: Actor,
  ): Promise<EndpointDetails> {
    const made = await this.templates.create(template, actor);
    try {
      return await this.endpoints.save({ ...command, templateId: made.id }, actor);
    } catch (error) {
      if (error instanceof DomainError && error.code !== ErrorCode.OwnerUnavailable) {
        await this.templates.delete(made.id, actor).catch((cleanup: unknown) => {
          // The refusal is what the caller needs to hear; the template left over is theirs to see and delete.
          this.logger.warn(
            `template ${made.id}, made for a refused endpoint, could not be deleted: ${(cleanup as Error).message}`,
          );
        });
      }
      throw error;
    }
  }
}
