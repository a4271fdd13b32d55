import { Args, Mutation, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { Actor, SaveEndpointCommand } from '@app/contracts';
import type { Principal } from '../accounts/accounts.service.js';
import { scopeMayManage } from '../accounts/api-key-scope.js';
import { actorOf, Auth, CurrentActor, CurrentPrincipal, Resource } from '../auth/auth.decorators.js';
import { EndpointsService, type EndpointDetails } from '../endpoints/endpoints.service.js';
import { authorizeRole } from '../auth/role-check.js';
import { toEndpointModel, toSaveCommand } from './endpoint.mapper.js';
import { EndpointInput, UpdateEndpointTemplateInput } from './inputs/endpoint.input.js';
import { EndpointModel } from './models/endpoint.model.js';
import { MyselfModel } from './models/myself.model.js';

const toModel = (details: EndpointDetails): EndpointModel => toEndpointModel(details.view, details);

/** Endpoint management: `saveEndpoint`, `updateEndpointTemplate`, `deleteEndpoint`, and `myself { endpoints }`. */
@Auth({ key: 'query-or-bearer' })
@Resource('endpoints')
@Resolver(() => MyselfModel)
export class EndpointsResolver {
  constructor(private readonly endpoints: EndpointsService) {}

  // Every member reads `myself`; each list checks the role for what it reads.
  @Resource('team')
  @Query(() => MyselfModel, { description: 'The calling user; each of its lists is read when selected' })
  myself(@CurrentActor() actor: Actor): MyselfModel {
    return { id: actor.userId, serverlessDiscount: null };
  }

  /** A read-only key sees no secret: `aiKey` null, secret-looking `env` values masked. */
  @ResolveField('endpoints', () => [EndpointModel], { description: "The user's serverless endpoints" })
  async myEndpoints(@CurrentPrincipal() principal: Principal): Promise<EndpointModel[]> {
    authorizeRole(principal, 'endpoints', 'read');
    const secrets = scopeMayManage(principal.key.scope);
    return (await this.endpoints.list(actorOf(principal), { secrets })).map(toModel);
  }

  @Mutation(() => EndpointModel, { description: 'Creates an endpoint, or modifies it when input.id is set' })
  async saveEndpoint(
    @Args('input') input: EndpointInput,
    @CurrentActor() actor: Actor,
  ): Promise<EndpointModel> {
    return toModel(await this.endpoints.save(toSaveCommand(input), actor));
  }

  /** The same update as saveEndpoint with only the template changed (its rules: the caller's, serverless). */
  @Mutation(() => EndpointModel, { description: "Changes the template an endpoint's workers run" })
  async updateEndpointTemplate(
    @Args('input') input: UpdateEndpointTemplateInput,
    @CurrentActor() actor: Actor,
  ): Promise<EndpointModel> {
    const details = await this.endpoints.update(
      input.endpointId,
      (current) => ({
        id: current.id,
        name: current.name,
        templateId: input.templateId,
        gpuIds: current.gpuIds as SaveEndpointCommand['gpuIds'],
      }),
      actor,
    );
    return toModel(details);
  }

  @Mutation(() => Boolean, {
    nullable: true,
    description: 'Deletes an endpoint whose workersMin and workersMax are 0; answers null',
  })
  async deleteEndpoint(
    @Args('id', { type: () => String }) id: string,
    @CurrentActor() actor: Actor,
  ): Promise<null> {
    await this.endpoints.delete(id, actor, 'graphql');
    return null;
  }
}
