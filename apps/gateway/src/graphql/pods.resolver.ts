import { Args, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { DomainError, ErrorCode, type Actor, type PodView } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { SecretsReadable } from '../auth/secrets-readable.decorator.js';
import { CatalogService } from '../catalog/catalog.service.js';
import { PodsService } from '../pods/pods.service.js';
import {
  DeployCpuPodInput,
  PodFindAndDeployOnDemandInput,
  PodRefInput,
  PodRentInterruptableInput,
  PodResumeInput,
} from './inputs/pod.input.js';
import { MyselfModel } from './models/myself.model.js';
import { PodMachineModel, PodModel } from './models/pod.model.js';
import { cpuTypeOfInstance } from './cpu-instance.js';
import { toCreatePod, toPodModel } from './pod.mapper.js';

/**
 * The pod documents of the Python SDK and of provisioners (management-api.md §3), on the same pod use cases as
 * /v1 and /v2: a pod made here is acted on there and the other way round, and pod-lifecycle checks every rule.
 */
@Auth({ key: 'query-or-bearer' })
@Resource('pods')
@Resolver(() => MyselfModel)
export class PodsResolver {
  constructor(
    private readonly pods: PodsService,
    private readonly catalog: CatalogService,
  ) {}

  /** Env secrets (a generated JUPYTER_PASSWORD, say) in clear for a full key, masked for a read key, as on REST. */
  @ResolveField('pods', () => [PodModel], { description: "The user's pods that are not terminated" })
  async myPods(@CurrentActor('pods') actor: Actor, @SecretsReadable() secrets: boolean): Promise<PodModel[]> {
    const now = new Date();
    return (await this.pods.list(false, actor, secrets)).map((view) => toPodModel(view, now));
  }

  /**
   * As RunPod answers it: `pod: null` for an id that names no pod (the Python SDK's get_pod then returns None);
   * another user's pod stays an error (FORBIDDEN), as on every surface here.
   */
  @Query(() => PodModel, { nullable: true, description: 'One pod; null when the id names none' })
  async pod(
    @Args('input') input: PodRefInput,
    @CurrentActor() actor: Actor,
    @SecretsReadable() secrets: boolean,
  ): Promise<PodModel | null> {
    try {
      return this.model(await this.pods.get(input.podId, actor, secrets));
    } catch (error) {
      if (error instanceof DomainError && error.code === ErrorCode.NotFound) return null;
      throw error;
    }
  }

  @Mutation(() => PodModel, { description: 'Creates a GPU pod, placed by the scheduler' })
  async podFindAndDeployOnDemand(
    @Args('input') input: PodFindAndDeployOnDemandInput,
    @CurrentActor() actor: Actor,
  ): Promise<PodModel> {
    return this.model(await this.pods.create(toCreatePod(input), actor));
  }

  /** RunPod's spot pod: `bidPerGpu` is checked and ignored (no spot market); the pod is interruptible. */
  @Mutation(() => PodModel, { description: 'Creates an interruptible GPU pod, placed by the scheduler' })
  async podRentInterruptable(
    @Args('input') input: PodRentInterruptableInput,
    @CurrentActor() actor: Actor,
  ): Promise<PodModel> {
    return this.model(await this.pods.create({ ...toCreatePod(input), interruptible: true }, actor));
  }

  @Mutation(() => PodModel, { description: 'Creates a CPU pod of a CPU type (instanceId), or of any' })
  async deployCpuPod(
    @Args('input') input: DeployCpuPodInput,
    @CurrentActor() actor: Actor,
  ): Promise<PodModel> {
    const cpuTypeId = input.instanceId
      ? cpuTypeOfInstance(input.instanceId, await this.catalog.cpuTypes(actor))
      : undefined;
    return this.model(await this.pods.create(toCreatePod(input, cpuTypeId), actor));
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
@Resource('pods')
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
