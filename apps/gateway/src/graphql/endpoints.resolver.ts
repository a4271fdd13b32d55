import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { Actor } from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { EndpointsService, type EndpointDetails } from '../endpoints/endpoints.service.js';
import { toEndpointModel, toSaveCommand } from './endpoint.mapper.js';
import { EndpointInput } from './inputs/endpoint.input.js';
import { EndpointModel } from './models/endpoint.model.js';
import { MyselfModel } from './models/myself.model.js';

const toModel = (details: EndpointDetails): EndpointModel => toEndpointModel(details.view, details);

/** Endpoint management: `saveEndpoint`, `deleteEndpoint`, and `myself { endpoints }`. */
@Auth({ key: 'query-or-bearer' })
@Resolver()
export class EndpointsResolver {
  constructor(private readonly endpoints: EndpointsService) {}

  @Query(() => MyselfModel, { description: 'The calling user, with their serverless endpoints' })
  async myself(@CurrentActor() actor: Actor): Promise<MyselfModel> {
    const endpoints = await this.endpoints.list(actor);
    return { id: actor.userId, endpoints: endpoints.map(toModel), serverlessDiscount: null };
  }

  @Mutation(() => EndpointModel, { description: 'Creates an endpoint, or modifies it when input.id is set' })
  async saveEndpoint(
    @Args('input') input: EndpointInput,
    @CurrentActor() actor: Actor,
  ): Promise<EndpointModel> {
    return toModel(await this.endpoints.save(toSaveCommand(input), actor));
  }

  @Mutation(() => Boolean, {
    nullable: true,
    description: 'Deletes an endpoint whose workersMin and workersMax are 0; answers null',
  })
  async deleteEndpoint(
    @Args('id', { type: () => String }) id: string,
    @CurrentActor() actor: Actor,
  ): Promise<null> {
    await this.endpoints.delete(id, actor);
    return null;
  }
}
