import { Type } from 'class-transformer';
import { IsInt, Matches, Min } from 'class-validator';
import { BaseConfig } from '@app/config';

/** The gateway's settings, validated once at boot (see .env.example). */
export class GatewayConfig extends BaseConfig {
  override HTTP_PORT = 8080;

  /** Key ring sealing registry passwords before they enter a command (`kid:base64key[,...]`, first one seals). */
  @Matches(/^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=)*$/, {
    message: 'REGISTRY_AUTH_KEYS must be kid:base64-of-32-bytes, comma-separated (newest first)',
  })
  REGISTRY_AUTH_KEYS: string;

  /** Largest JSON body accepted on the REST routes, in bytes. */
  @IsInt()
  @Min(1024)
  @Type(() => Number)
  MAX_BODY_BYTES = 1024 * 1024;
}
