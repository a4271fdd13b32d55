import { BaseConfig } from '@app/config';

/** cluster-scheduler's settings, validated once at boot (see .env.example). */
export class ClusterSchedulerConfig extends BaseConfig {
  override HTTP_PORT = 8081;
}
