import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { BaseConfig } from '@app/config';

export const RUNTIME_DRIVERS = ['simulated', 'local'] as const;
export type RuntimeDriverName = (typeof RUNTIME_DRIVERS)[number];

/** pod-lifecycle's settings, validated once at boot (see .env.example and docs/pods.md). */
export class PodLifecycleConfig extends BaseConfig {
  override HTTP_PORT = 8082;

  /**
   * Key ring opening sealed registry passwords (`kid:base64key[,...]`, the same ring as the gateway's), used
   * only when a runtime driver pulls a private image. Without it, pods with a registry credential fail at pull
   * (ERROR, naming this variable); every other pod runs.
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=)*$/, {
    message: 'REGISTRY_AUTH_KEYS must be kid:base64-of-32-bytes, comma-separated (newest first)',
  })
  REGISTRY_AUTH_KEYS?: string;

  /** Which runtime runs pods: `local` (catalog images as child processes, others simulated) or `simulated`. */
  @IsIn(RUNTIME_DRIVERS)
  RUNTIME_DRIVER: RuntimeDriverName = 'local';

  /** Simulated driver: PROVISIONING → STARTING (image pull, container create), in ms. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  @Type(() => Number)
  SIM_PROVISION_MS = 1500;

  /** Simulated driver: STARTING → RUNNING, in ms. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  @Type(() => Number)
  SIM_START_MS = 1500;

  /** Local driver: JSON file mapping image names to commands (see local-images.json). */
  @IsString()
  LOCAL_IMAGE_CATALOG = 'apps/pod-lifecycle/local-images.json';

  /** Local driver: where each pod's working directory (its container disk) lives. */
  @IsString()
  LOCAL_PODS_DIR = '.local/pods';

  /** Local driver: PATH inside local pods (no other variable of pod-lifecycle's environment reaches them). */
  @IsString()
  LOCAL_POD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

  /** Local driver: how long a started process must stay up before the pod is RUNNING, in ms. */
  @IsInt()
  @Min(0)
  @Max(600_000)
  @Type(() => Number)
  LOCAL_READY_MS = 300;
}
