import { Field, Float, ID, Int, ObjectType } from '@nestjs/graphql';
import type { GpuAvailability } from '@app/contracts';

/** One exposed port of a running pod (`runtime { ports { ... } }`). */
@ObjectType('PodRuntimePort')
export class PodRuntimePortModel {
  @Field(() => String, { nullable: true })
  ip: string | null;

  @Field(() => Boolean)
  isIpPublic: boolean;

  @Field(() => Int)
  privatePort: number;

  @Field(() => Int, { nullable: true })
  publicPort: number | null;

  /** `http` or `tcp`. */
  @Field(() => String)
  type: string;
}

/** Present only while the pod runs: provisioners poll `pod { runtime }` until it is not null. */
@ObjectType('PodRuntime')
export class PodRuntimeModel {
  @Field(() => Int)
  uptimeInSeconds: number;

  @Field(() => [PodRuntimePortModel])
  ports: PodRuntimePortModel[];
}

@ObjectType('PodMachine')
export class PodMachineModel {
  /** The host the pod is placed on. */
  @Field(() => String, { nullable: true })
  podHostId: string | null;

  /** The catalog's GPU type id; `gpuDisplayName` (resolved from the catalog when selected) names it. */
  @Field(() => String, { nullable: true })
  gpuTypeId: string | null;

  @Field(() => String, { nullable: true })
  dataCenterId: string | null;
}

/**
 * This project's extension: why the pod is not RUNNING (or that its host drains), as the REST views' `reason` says
 * it. Its `details` stay REST's: this schema has no JSON scalar, and the code and sentence say what matters.
 */
@ObjectType('PodReason')
export class PodReasonModel {
  /** PROVISIONING, STARTING, EXITED, ERROR, PREEMPTED, IMAGE_PULL_FAILED, HOST_DRAINING, HOST_UNHEALTHY, … */
  @Field(() => String)
  code: string;

  @Field(() => String)
  message: string;

  /** ISO time since which it holds. */
  @Field(() => String)
  since: string;
}

/** A pod as the Python SDK's documents select it (`myself { pods }`, `pod(input:)`, the pod mutations). */
@ObjectType('Pod')
export class PodModel {
  @Field(() => ID)
  id: string;

  @Field(() => String)
  name: string;

  @Field(() => String)
  imageName: string;

  @Field(() => String, { nullable: true })
  dockerArgs: string | null;

  @Field(() => String, { nullable: true, description: 'Always null: the container id is the runtime’s' })
  dockerId: string | null;

  /** `KEY=value` entries; values of secret-looking names masked, as on every surface. */
  @Field(() => [String])
  env: string[];

  @Field(() => Int)
  gpuCount: number;

  @Field(() => Float, { nullable: true, description: 'null: this deployment keeps no prices' })
  costPerHr: number | null;

  /** RUNNING, EXITED or TERMINATED: what was last asked for. */
  @Field(() => String)
  desiredStatus: string;

  /** PROVISIONING, STARTING, RUNNING, EXITED, ERROR or TERMINATED. */
  @Field(() => String)
  status: string;

  @Field(() => String)
  lastStatusChange: string;

  /** This project's extension: why the pod is not RUNNING; null for a RUNNING pod nothing threatens. */
  @Field(() => PodReasonModel, { nullable: true })
  reason: PodReasonModel | null;

  @Field(() => String, { nullable: true })
  machineId: string | null;

  @Field(() => PodMachineModel)
  machine: PodMachineModel;

  @Field(() => Float, { nullable: true, description: 'null: a pod’s share of host memory is not modelled' })
  memoryInGb: number | null;

  @Field(() => Float, { nullable: true, description: 'null: a pod’s share of host vCPUs is not modelled' })
  vcpuCount: number | null;

  /** RunPod's names: INTERRUPTABLE for an interruptible (spot) pod, RESERVED otherwise. */
  @Field(() => String)
  podType: string;

  /** This project's extension: low, normal or high against the account's other workloads. */
  @Field(() => String)
  priority: string;

  /** The first exposed port, as the legacy field gave it. */
  @Field(() => Int, { nullable: true })
  port: number | null;

  /** `8888/http,22/tcp`. */
  @Field(() => String)
  ports: string;

  @Field(() => Int)
  uptimeSeconds: number;

  @Field(() => Int)
  containerDiskInGb: number;

  @Field(() => Int, { description: "The pod's volume disk, GB, at volumeMountPath; 0 when it has none" })
  volumeInGb: number;

  @Field(() => String, { nullable: true })
  volumeMountPath: string | null;

  @Field(() => PodRuntimeModel, { nullable: true })
  runtime: PodRuntimeModel | null;
}

/** One CUDA version of `lowestPrice { gpuTypeCudaVersions }`: the fleet records none (docs/api.md). */
@ObjectType('GpuTypeCudaVersion')
export class GpuTypeCudaVersionModel {
  @Field(() => String)
  cudaVersion: string;

  /** AVAILABLE or UNAVAILABLE. */
  @Field(() => String)
  availability: string;
}

/**
 * `lowestPrice` of a GPU type: the fleet's price (on demand only: no bidding, so `minimumBidPrice` is null) and
 * its stock, from the scheduler's free GPUs (stock-status.ts).
 */
@ObjectType('LowestPrice')
export class LowestPriceModel {
  @Field(() => Float, { nullable: true })
  minimumBidPrice: number | null;

  @Field(() => Float, { nullable: true })
  uninterruptablePrice: number | null;

  @Field(() => String, { nullable: true, description: 'High, Medium or Low; null when none can be placed' })
  stockStatus: string | null;

  @Field(() => [GpuTypeCudaVersionModel], {
    description: 'Always empty: the fleet does not record its hosts’ CUDA versions',
  })
  gpuTypeCudaVersions: GpuTypeCudaVersionModel[];
}

/**
 * A GPU type of the catalog as `gpuTypes(input:)` returns it. A self-hosted fleet has one price per type, its
 * on-demand ("secure") price: the community, spot and savings-plan prices are null (docs/api.md).
 */
@ObjectType('GpuType')
export class GpuTypeModel {
  @Field(() => ID)
  id: string;

  @Field(() => String)
  displayName: string;

  @Field(() => String)
  manufacturer: string;

  @Field(() => Int)
  memoryInGb: number;

  @Field(() => Int, { nullable: true, description: 'null: the fleet file does not say' })
  cudaCores: number | null;

  @Field(() => Int)
  maxGpuCount: number;

  @Field(() => Boolean)
  secureCloud: boolean;

  @Field(() => Boolean)
  communityCloud: boolean;

  @Field(() => Float, { description: 'The fleet’s price per GPU per hour' })
  securePrice: number;

  @Field(() => Float, { nullable: true })
  communityPrice: number | null;

  @Field(() => Float, { nullable: true })
  secureSpotPrice: number | null;

  @Field(() => Float, { nullable: true })
  communitySpotPrice: number | null;

  @Field(() => Float, { nullable: true })
  oneWeekPrice: number | null;

  @Field(() => Float, { nullable: true })
  oneMonthPrice: number | null;

  @Field(() => Float, { nullable: true })
  threeMonthPrice: number | null;

  /** Live capacity from the scheduler, what `lowestPrice { stockStatus }` answers from (not a field). */
  availability: GpuAvailability;
}
