import { BaseConfig } from '@app/config';

/** endpoint-autoscaler's settings, validated once at boot (see .env.example). */
export class EndpointAutoscalerConfig extends BaseConfig {
  override HTTP_PORT = 8084;
}
