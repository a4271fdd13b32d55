import { IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { ACCOUNT_NAME } from './account.commands.js';
import { TEAM_ROLES, type TeamRole } from './team-roles.js';

const ROLE_MESSAGE = `role must be one of ${TEAM_ROLES.join(', ')}`;

/** Body of `POST /v2/teams` and `PATCH /v2/teams/{id}`. */
export class TeamDto {
  @Matches(ACCOUNT_NAME, { message: 'name must be 1-64 of letters, digits, . _ @ -' })
  name: string;
}

/** Body of `POST /v2/teams/{id}/members`: a user (id or name) and the role they get. */
export class AddMemberDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  user: string;

  @IsIn(TEAM_ROLES, { message: ROLE_MESSAGE })
  role: TeamRole;
}

/** Body of `PATCH /v2/teams/{id}/members/{userId}`. */
export class MemberRoleDto {
  @IsIn(TEAM_ROLES, { message: ROLE_MESSAGE })
  role: TeamRole;
}

/** Body of `PATCH /v2/users/{userId}` (operators only). */
export class UpdateUserDto {
  @IsOptional()
  @IsBoolean()
  disabled?: boolean;

  @IsOptional()
  @IsBoolean()
  rateLimitExempt?: boolean;
}
