import { Field, ID, Int, ObjectType } from '@nestjs/graphql';
import { EndpointPodModel } from './endpoint-pod.model.js';
import { EnvironmentVariableModel } from './environment-variable.model.js';
import { FlashBootType } from './flash-boot-type.enum.js';
import { NetworkVolumeModel } from './network-volume.model.js';

/** A serverless endpoint as GraphQL clients see it (field names of the interface and of RunPod's clients). */
@ObjectType('Endpoint')
export class EndpointModel {
  @Field(() => ID)
  id: string;

  @Field(() => String)
  name: string;

  /** GPU tiers in order of preference, comma-separated. */
  @Field(() => String)
  gpuIds: string;

  @Field(() => Int)
  gpuCount: number;

  @Field(() => String)
  templateId: string;

  /** QB (queue-based) or LB (load balancing). */
  @Field(() => String)
  type: string;

  @Field(() => Int)
  idleTimeout: number;

  /** Allowed region codes, comma-separated; null for any. */
  @Field(() => String, { nullable: true })
  locations: string | null;

  @Field(() => FlashBootType)
  flashBootType: FlashBootType;

  /** QUEUE_DELAY or REQUEST_COUNT. */
  @Field(() => String)
  scalerType: string;

  @Field(() => Int)
  scalerValue: number;

  @Field(() => Int)
  workersMin: number;

  @Field(() => Int)
  workersMax: number;

  /** Stopped workers kept to be resumed (FLASHBOOT). */
  @Field(() => Int)
  workersStandby: number;

  @Field(() => String, { nullable: true })
  networkVolumeId: string | null;

  @Field(() => NetworkVolumeModel, { nullable: true })
  networkVolume: NetworkVolumeModel | null;

  /** Comma-separated CUDA versions; null for any. */
  @Field(() => String, { nullable: true })
  allowedCudaVersions: string | null;

  /**
   * The workers' API key (RUNPOD_AI_API_KEY): it may only take and report this endpoint's jobs. Only for a key that
   * may manage the endpoint; null for a read-only key.
   */
  @Field(() => String, { nullable: true })
  aiKey: string | null;

  @Field(() => String)
  userId: string;

  @Field(() => Int)
  version: number;

  /** Extra worker environment; to a read-only key, values of secret-looking names are masked. */
  @Field(() => [EnvironmentVariableModel])
  env: EnvironmentVariableModel[];

  /** This project's extension: the workers' priority, low, normal or high. */
  @Field(() => String)
  priority: string;

  @Field(() => String)
  createdAt: string;

  @Field(() => [EndpointPodModel])
  pods: EndpointPodModel[];
}
