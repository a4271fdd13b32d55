import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { TEAM_ROLES, type TeamRole } from './team-roles.js';

/** A user's or a team's name: what the keys CLI and the console show, unique among accounts. */
export const ACCOUNT_NAME = /^[A-Za-z0-9._@-]{1,64}$/;
const ACCOUNT_NAME_MESSAGE = 'name must be 1-64 of letters, digits, . _ @ -';

/** The scopes a key may have: `operator` only from the keys CLI, `worker` only minted for an endpoint's workers. */
export const API_KEY_SCOPES = ['full', 'read', 'endpoints', 'worker', 'operator'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export function isApiKeyScope(value: unknown): value is ApiKeyScope {
  return typeof value === 'string' && (API_KEY_SCOPES as readonly string[]).includes(value);
}

/** `account.cmd.create-user`: a user (the keys CLI, or a first sign-in through the identity provider). */
export class CreateUserCommand {
  @Matches(ACCOUNT_NAME, { message: ACCOUNT_NAME_MESSAGE })
  name: string;

  @IsOptional()
  @IsBoolean()
  rateLimitExempt?: boolean;

  /** The identity provider's subject (`iss` and `sub`), for a user created by a sign-in. */
  @IsOptional()
  @IsString()
  @MaxLength(512)
  ssoSubject?: string;
}

/** `account.cmd.update-user` (keys CLI): the rate-limit exemption, or disabled (its keys and sessions refused). */
export class UpdateUserCommand {
  @IsString()
  @IsNotEmpty()
  user: string;

  @IsOptional()
  @IsBoolean()
  rateLimitExempt?: boolean;

  @IsOptional()
  @IsBoolean()
  disabled?: boolean;
}

/** `account.cmd.delete-user` (keys CLI): refused while the user's own account owns live resources or a team needs it. */
export class DeleteUserCommand {
  @IsString()
  @IsNotEmpty()
  user: string;
}

/**
 * `account.cmd.create-key`: a key's record. The secret never travels: the issuer makes it and sends only its SHA-256
 * and its first characters, so the command stream holds nothing a caller could present.
 */
export class CreateKeyCommand {
  /** The user who holds the key (id or name). */
  @IsString()
  @IsNotEmpty()
  user: string;

  /** The team it acts for; absent: the holder's own account. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  teamId?: string;

  @IsIn(API_KEY_SCOPES)
  scope: ApiKeyScope;

  @IsString()
  @MinLength(1)
  @MaxLength(128)
  name: string;

  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  endpointIds: string[];

  @Matches(/^[0-9a-f]{64}$/)
  keyHash: string;

  @IsString()
  @MaxLength(16)
  keyPrefix: string;

  /** A user's own request (`POST /v2/account/api-keys`): at most this many active keys, else refused. */
  @IsOptional()
  @IsInt()
  @Min(1)
  cap?: number;
}

/**
 * `account.cmd.revoke-keys`: one key by id, or every worker key of an endpoint. With `holder`, only a key that user
 * holds for `teamId` (or their own account) is revoked: anything else is "not found".
 */
export class RevokeKeysCommand {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  keyId?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  workersOfEndpoint?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  holder?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  teamId?: string;
}

export class CreateTeamCommand {
  @Matches(ACCOUNT_NAME, { message: ACCOUNT_NAME_MESSAGE })
  name: string;
}

/** What a team command acts on, and whether an operator issued it (operators manage every team). */
export class TeamRefCommand {
  @IsString()
  @IsNotEmpty()
  teamId: string;

  @IsOptional()
  @IsBoolean()
  asOperator?: boolean;
}

export class RenameTeamCommand extends TeamRefCommand {
  @Matches(ACCOUNT_NAME, { message: ACCOUNT_NAME_MESSAGE })
  name: string;
}

export class AddMemberCommand extends TeamRefCommand {
  /** The user, by id or name. */
  @IsString()
  @IsNotEmpty()
  user: string;

  @IsIn(TEAM_ROLES, { message: `role must be one of ${TEAM_ROLES.join(', ')}` })
  role: TeamRole;
}

export class SetMemberRoleCommand extends TeamRefCommand {
  @IsString()
  @IsNotEmpty()
  userId: string;

  @IsIn(TEAM_ROLES, { message: `role must be one of ${TEAM_ROLES.join(', ')}` })
  role: TeamRole;
}

export class RemoveMemberCommand extends TeamRefCommand {
  @IsString()
  @IsNotEmpty()
  userId: string;
}

export interface UserView {
  id: string;
  name: string;
  rateLimitExempt: boolean;
  disabled: boolean;
  createdAt: string;
}

/** A key's record as the account commands answer it (never the secret nor its hash). */
export interface KeyRecordView {
  id: string;
  userId: string;
  /** The account it acts for: the holder's own id, or a team's. */
  accountId: string;
  name: string;
  prefix: string;
  scope: ApiKeyScope;
  endpointIds: string[];
  createdAt: string;
}

export interface RevokedKeys {
  revoked: { id: string; userId: string; accountId: string }[];
}

export interface TeamView {
  id: string;
  name: string;
  createdAt: string;
  /** The caller's role in it (absent for an operator who is not a member). */
  role?: TeamRole;
  members: number;
}

export interface TeamMemberView {
  userId: string;
  name: string;
  role: TeamRole;
  addedAt: string;
}

/** The answer of a member command: the member as it now is (removed: as it was). */
export interface MemberChanged {
  teamId: string;
  member: TeamMemberView;
  /** Keys the change revoked (a member removed loses every key of the team). */
  revokedKeyIds: string[];
}

/** `GET /v2/teams`: the caller's teams (an operator's key: every team). */
export interface TeamList {
  teams: TeamView[];
}

/** `GET /v2/teams/{id}/members`. */
export interface TeamMemberList {
  members: TeamMemberView[];
}

/** `GET /v2/users` (operators only). */
export interface UserList {
  users: UserView[];
}
