import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import type { ApiKeyView } from './api-key.views.js';

/** The scopes a user may give a key of their own; `worker` keys are minted by the gateway for an endpoint. */
export const USER_API_KEY_SCOPES = ['full', 'read', 'endpoints'] as const;
export type UserApiKeyScope = (typeof USER_API_KEY_SCOPES)[number];

/** How many active keys (worker keys not counted) one user may hold; `POST /v2/account/api-keys` answers 409 past it. */
export const MAX_ACTIVE_API_KEYS = 50;

/**
 * Body of `POST /v2/account/api-keys`: a new key of the signed-in user. Only a `full` key may create one, and never
 * of a wider scope than its own. `endpointIds` is required for scope `endpoints` and refused for the others.
 */
export class CreateApiKeyDto {
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  @Matches(/^\S(.*\S)?$/, { message: 'name must not start or end with white space' })
  name: string;

  @IsIn(USER_API_KEY_SCOPES)
  scope: UserApiKeyScope;

  /** For scope `endpoints`: the serverless endpoints whose job routes the key may use. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { each: true, message: 'each of endpointIds must be an endpoint id' })
  endpointIds?: string[];

  /**
   * The team the key acts for (one the caller is a member of); absent: the account of the key making the request.
   * The key's rights are its scope and the holder's role in the team, both.
   */
  @IsOptional()
  @IsString()
  @Matches(/^team_[A-Za-z0-9]{1,64}$/, { message: 'teamId must be a team id (team_…)' })
  teamId?: string;
}

/** The answer of `POST /v2/account/api-keys`: the new key's view and the key itself, shown this once only. */
export interface CreatedApiKey extends ApiKeyView {
  /** The secret: only its SHA-256 is stored, no later answer contains it. */
  key: string;
}
