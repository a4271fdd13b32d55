import { All, Controller, Param, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { RateLimitPolicy } from '../rate-limit/rate-limit.decorators.js';
import { lbRoute } from './lb-routes.setup.js';
import { LbService } from './lb.service.js';

/**
 * Every request to a load-balancing endpoint: `/lb/{endpoint_id}/{path}`, or any path on
 * `{endpoint_id}.{LB_DOMAIN}` (rewritten to the former). Any method; the key as bearer, scopes as on the queue
 * routes (a read key only reads, an `endpoints` key only its endpoints, a worker key never). Not in the OpenAPI
 * descriptions: what the path means is the worker's API, not ours.
 */
@ApiExcludeController()
@Auth({ key: 'bearer', endpointParam: 'endpointId' })
@RateLimitPolicy('lb')
@Controller('lb')
export class LbController {
  constructor(private readonly lb: LbService) {}

  @All([':endpointId', ':endpointId/*'])
  @RouteConfig(lbRoute())
  forward(
    @Param('endpointId') endpointId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    return this.lb.forward(endpointId, request, reply, actor);
  }
}
