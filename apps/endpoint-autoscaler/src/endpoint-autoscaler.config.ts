import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, Matches, Max, Min } from 'class-validator';
import { BaseConfig } from '@app/config';

/** endpoint-autoscaler's settings, validated once at boot (see .env.example). */
export class EndpointAutoscalerConfig extends BaseConfig {
  override HTTP_PORT = 8084;
  override METRICS_PORT = 9084;

  /** `false` keeps the control loop off (endpoints are still saved, listed and deleted). */
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'AUTOSCALER_ENABLED must be true or false' })
  AUTOSCALER_ENABLED = true;

  /** How often the control loop compares desired with actual workers of every endpoint. */
  @IsInt()
  @Min(50)
  @Max(60_000)
  @Type(() => Number)
  AUTOSCALER_TICK_MS = 1000;

  /** After a failed worker start (no capacity, say), no new start for the endpoint for this long. */
  @IsInt()
  @Min(0)
  @Type(() => Number)
  AUTOSCALER_FAILURE_BACKOFF_MS = 5000;

  /** A command the loop issued and pod-lifecycle has not yet applied is issued again after this long. */
  @IsInt()
  @Min(1000)
  @Type(() => Number)
  AUTOSCALER_REISSUE_AFTER_MS = 15_000;

  /** Base URL the workers reach the queue routes at (`<url>/v2/<endpoint>/job-take/...`): the gateway's. */
  @Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, { message: 'QUEUE_PUBLIC_URL must be an http(s) URL' })
  QUEUE_PUBLIC_URL = 'http://127.0.0.1:8080';

  /** RUNPOD_PING_INTERVAL given to workers, ms. */
  @IsInt()
  @Min(1000)
  @Type(() => Number)
  WORKER_PING_INTERVAL_MS = 10_000;

  /** Where an endpoint's network volume is mounted in its workers (RunPod's serverless path). */
  @Matches(/^\/\S*$/, { message: 'WORKER_VOLUME_MOUNT_PATH must be an absolute path' })
  WORKER_VOLUME_MOUNT_PATH = '/runpod-volume';
}
