import { BaseConfig } from '@app/config';

/** pod-lifecycle's settings, validated once at boot (see .env.example). */
export class PodLifecycleConfig extends BaseConfig {
  override HTTP_PORT = 8082;
}
