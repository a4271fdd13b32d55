import {
  IsNotEmpty,
  IsString,
  MaxLength,
  ValidateBy,
  buildMessage,
  type ValidationOptions,
} from 'class-validator';

const ID_MAX = 200;
export const WEBHOOK_URL_MAX = 2048;
/** The scheme rule as a JSON Schema pattern (the OpenAPI description), case-insensitive as URL schemes are. */
export const WEBHOOK_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://';

/**
 * Whether `value` is a URL the broker would try to deliver to: absolute, http or https, with a host. Whether that
 * host may be reached is decided at send time, after name resolution (apps/queue-broker/src/webhooks): an address
 * checked here could resolve elsewhere by then.
 */
export function isWebhookUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > WEBHOOK_URL_MAX || !URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
}

export function IsWebhookUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWebhookUrl',
      validator: {
        validate: isWebhookUrl,
        defaultMessage: buildMessage(
          (each) =>
            `${each}$property must be an absolute http:// or https:// URL of at most ${WEBHOOK_URL_MAX} characters`,
          options,
        ),
      },
    },
    options,
  );
}

/**
 * `job.cmd.rotate-webhook-secret`: the endpoint's webhooks are signed with a new secret from now on (the previous
 * one signs alongside it for WEBHOOK_SECRET_OVERLAP_MS, so receivers can switch without losing a delivery). The
 * gateway draws the secret and seals it: the recorded command never carries it in plaintext, and a replay stores
 * the same sealed value.
 */
export class RotateWebhookSecretCommand {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX)
  endpointId: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  secretSealed: string;
}

/** `job.qry.webhook-secret`: the endpoint's signing secret, sealed (the gateway opens it for the owner). */
export class GetWebhookSecretQuery {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX)
  endpointId: string;
}

export interface WebhookSecretView {
  endpointId: string;
  /** Sealed with the key ring (REGISTRY_AUTH_KEYS), associated data: the endpoint id. */
  secretSealed: string;
  rotatedAt: string;
}

/** `GET /v2/{endpointId}/webhook-secret`: what the endpoint's owner reads (Standard Webhooks). */
export interface WebhookSecret {
  endpointId: string;
  /** `whsec_` + base64 of 32 random bytes, as the Standard Webhooks libraries take it. */
  secret: string;
  /** Since when it signs; the secret it replaced signs alongside it for WEBHOOK_SECRET_OVERLAP_MS. */
  rotatedAt: string;
}
