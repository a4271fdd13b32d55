import { Args, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { DomainError, ErrorCode, type Actor, type PodView } from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { CatalogService } from '../catalog/catalog.service.js';
import { PodsService } from '../pods/pods.service.js';
import {
  DeployCpuPodInput,
  GpuLowestPriceInput,
  GpuTypeFilterInput,
  PodFindAndDeployOnDemandInput,
  PodRefInput,
  PodResumeInput,
} from './inputs/pod.input.js';
import { MyselfModel } from './models/myself.model.js';
import { GpuTypeModel, LowestPriceModel, PodMachineModel, PodModel } from './models/pod.model.js';
import { toCreatePod, toPodModel } from './pod.mapper.js';

/**
 * The pod documents of the Python SDK and of provisioners (management-api.md §3), on the same pod use cases as
 * /v1 and /v2: a pod made here is acted on there and the other way round, and pod-lifecycle checks every rule.
 */
@Auth({ key: 'query-or-bearer' })
@Resolver(() => MyselfModel)
export class PodsResolver {
  constructor(
    private readonly pods: PodsService,
    private readonly catalog: CatalogService,
  ) {}

  @ResolveField('pods', () => [PodModel], { description: "The user's pods that are not terminated" })
  async myPods(@CurrentActor() actor: Actor): Promise<PodModel[]> {
    const now = new Date();
    return (await this.pods.list(false, actor)).map((view) => toPodModel(view, now));
  }

  @Query(() => PodModel, { description: 'One pod (404 unknown, 403 another user’s)' })
  async pod(@Args('input') input: PodRefInput, @CurrentActor() actor: Actor): Promise<PodModel> {
    return this.model(await this.pods.get(input.podId, actor));
  }

  @Mutation(() => PodModel, { description: 'Creates a GPU pod, placed by the scheduler' })
  async podFindAndDeployOnDemand(
    @Args('input') input: PodFindAndDeployOnDemandInput,
    @CurrentActor() actor: Actor,
  ): Promise<PodModel> {
    return this.model(await this.pods.create(toCreatePod(input), actor));
  }

  @Mutation(() => PodModel, { description: 'Creates a CPU pod of a CPU flavor (instanceId)' })
  async deployCpuPod(
    @Args('input') input: DeployCpuPodInput,
    @CurrentActor() actor: Actor,
  ): Promise<PodModel> {
    return this.model(await this.pods.create(toCreatePod(input), actor));
  }

  @Mutation(() => PodModel, { description: 'Stops a pod, keeping its disk (as POST /v1/pods/{id}/stop)' })
  async podStop(@Args('input') input: PodRefInput, @CurrentActor() actor: Actor): Promise<PodModel> {
    return this.model(await this.pods.stop(input.podId, actor));
  }

  @Mutation(() => PodModel, { description: 'Starts a stopped pod again with the GPUs it was created with' })
  async podResume(@Args('input') input: PodResumeInput, @CurrentActor() actor: Actor): Promise<PodModel> {
    if (input.gpuCount !== undefined && input.gpuCount !== null) {
      const current = await this.pods.get(input.podId, actor);
      if (input.gpuCount !== current.gpuCount) {
        throw new DomainError(ErrorCode.ValidationFailed, 'the pod cannot resume with another GPU count', [
          `gpuCount: pod ${input.podId} has ${current.gpuCount} GPU(s); create a new pod for ${input.gpuCount}`,
        ]);
      }
    }
    return this.model(await this.pods.start(input.podId, actor));
  }

  @Mutation(() => Boolean, {
    nullable: true,
    description: 'Terminates a pod and frees its disk; answers null',
  })
  async podTerminate(@Args('input') input: PodRefInput, @CurrentActor() actor: Actor): Promise<null> {
    await this.pods.terminate(input.podId, actor);
    return null;
  }

  @Query(() => [GpuTypeModel], { description: 'GPU types of the catalog, one by id or all' })
  async gpuTypes(
    @Args('input', { type: () => GpuTypeFilterInput, nullable: true }) input: GpuTypeFilterInput | null,
    @CurrentActor() actor: Actor,
  ): Promise<GpuTypeModel[]> {
    const types = await this.catalog.gpuTypes(actor);
    return types
      .filter((t) => !input?.id || t.id === input.id)
      .map((t) => ({
        id: t.id,
        displayName: t.displayName,
        memoryInGb: t.memoryInGb,
        maxGpuCount: t.maxCount,
        secureCloud: true,
        communityCloud: false,
        pricePerHr: t.pricePerHr,
      }));
  }

  private model(view: PodView): PodModel {
    return toPodModel(view, new Date());
  }
}

const NAMES_TTL_MS = 60_000;

/**
 * `machine { gpuDisplayName }`: the catalog's name of the pod's GPU type, read only when a document selects it (so
 * pod documents do not depend on the catalog's owner otherwise) and kept a minute: GPU types change with the
 * fleet file, not per request.
 */
@Auth({ key: 'query-or-bearer' })
@Resolver(() => PodMachineModel)
export class PodMachineResolver {
  private names: { map: Map<string, string>; until: number } | null = null;

  constructor(private readonly catalog: CatalogService) {}

  @ResolveField('gpuDisplayName', () => String, { nullable: true })
  async gpuDisplayName(
    @Parent() machine: PodMachineModel,
    @CurrentActor() actor: Actor,
  ): Promise<string | null> {
    if (!machine.gpuTypeId) return null;
    if (!this.names || this.names.until < Date.now()) {
      const types = await this.catalog.gpuTypes(actor);
      this.names = {
        map: new Map(types.map((t) => [t.id, t.displayName])),
        until: Date.now() + NAMES_TTL_MS,
      };
    }
    return this.names.map.get(machine.gpuTypeId) ?? machine.gpuTypeId;
  }
}

/**
 * `lowestPrice(input:)` of a GPU type: its catalog price × `gpuCount` (1 when absent) per hour. There is one price
 * per type (on demand, no spot market), so `minimumBidPrice` stays null.
 */
@Auth({ key: 'query-or-bearer' })
@Resolver(() => GpuTypeModel)
export class GpuTypePriceResolver {
  @ResolveField('lowestPrice', () => LowestPriceModel)
  lowestPrice(
    @Parent() gpuType: GpuTypeModel,
    @Args('input', { type: () => GpuLowestPriceInput, nullable: true }) input: GpuLowestPriceInput | null,
  ): LowestPriceModel {
    const count = input?.gpuCount ?? 1;
    return {
      minimumBidPrice: null,
      uninterruptablePrice: Math.round(gpuType.pricePerHr * count * 1e6) / 1e6,
    };
  }
}
