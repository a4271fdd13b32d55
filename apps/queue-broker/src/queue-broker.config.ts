import { BaseConfig } from '@app/config';

/** queue-broker's settings, validated once at boot (see .env.example). */
export class QueueBrokerConfig extends BaseConfig {
  override HTTP_PORT = 8083;
}
