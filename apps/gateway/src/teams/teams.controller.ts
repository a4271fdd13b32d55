import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  AddMemberDto,
  MemberRoleDto,
  TeamDto,
  type TeamList,
  type TeamMemberList,
  type TeamMemberView,
  type TeamView,
} from '@app/contracts';
import type { Principal } from '../accounts/principal.js';
import { Auth, CurrentPrincipal, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { TeamsService } from './teams.service.js';

const LAST_OWNER = 'the change would leave the team without an owner';

/** `/v2/teams`: accounts several users share, their members and roles (docs/api.md, "Teams and roles"). */
@ApiTags('Teams')
@Auth({ key: 'bearer' })
@Resource('team')
@Controller('v2/teams')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  @Post()
  @HttpCode(201)
  @Operation('Create a team', {
    returns: 'TeamView',
    description: 'The caller becomes its owner. Its name is unique among users and teams.',
    errors: { 409: 'a user or team of that name exists' },
  })
  create(@Body() dto: TeamDto, @CurrentPrincipal() principal: Principal): Promise<TeamView> {
    return this.teams.create(principal, dto.name);
  }

  @Get()
  @Operation("The caller's teams, with their role in each (an operator key: every team)", {
    returns: 'TeamList',
  })
  async list(@CurrentPrincipal() principal: Principal): Promise<TeamList> {
    return { teams: await this.teams.list(principal) };
  }

  @Get(':teamId')
  @Operation('Get a team', { returns: 'TeamView' })
  get(@Param('teamId') id: string, @CurrentPrincipal() principal: Principal): Promise<TeamView> {
    return this.teams.get(principal, id);
  }

  @Patch(':teamId')
  @Operation('Rename a team', { returns: 'TeamView', errors: { 409: 'a user or team of that name exists' } })
  rename(
    @Param('teamId') id: string,
    @Body() dto: TeamDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TeamView> {
    return this.teams.rename(principal, id, dto.name);
  }

  @Delete(':teamId')
  @HttpCode(204)
  @Operation('Delete a team', {
    description:
      "Its owners only. Refused while it owns live resources; its members' keys for it are revoked.",
    errors: {
      400: 'the team still owns pods, clusters, endpoints, volumes, templates or registry credentials',
    },
  })
  delete(@Param('teamId') id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.teams.delete(principal, id);
  }

  @Get(':teamId/members')
  @Operation("The team's members and their roles", { returns: 'TeamMemberList' })
  async members(
    @Param('teamId') id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TeamMemberList> {
    return { members: await this.teams.members(principal, id) };
  }

  @Post(':teamId/members')
  @HttpCode(201)
  @Operation('Add a member', {
    returns: 'TeamMemberView',
    description: 'By user id or name, with one role. Owners and admins add members; only owners make owners.',
    errors: { 409: 'the user is already a member' },
  })
  addMember(
    @Param('teamId') id: string,
    @Body() dto: AddMemberDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TeamMemberView> {
    return this.teams.addMember(principal, id, dto.user, dto.role);
  }

  @Patch(':teamId/members/:userId')
  @Operation("Change a member's role", {
    returns: 'TeamMemberView',
    description: 'In force on every gateway replica within a second. The last owner cannot be demoted.',
    errors: { 409: LAST_OWNER },
  })
  setRole(
    @Param('teamId') id: string,
    @Param('userId') userId: string,
    @Body() dto: MemberRoleDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TeamMemberView> {
    return this.teams.setRole(principal, id, userId, dto.role);
  }

  @Delete(':teamId/members/:userId')
  @HttpCode(204)
  @Operation('Remove a member, or leave', {
    description:
      'Any member may leave; owners and admins remove others. Every key the member holds for the team is revoked ' +
      'on every gateway replica within a second. The last owner cannot leave.',
    errors: { 409: LAST_OWNER },
  })
  async removeMember(
    @Param('teamId') id: string,
    @Param('userId') userId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    await this.teams.removeMember(principal, id, userId);
  }
}
