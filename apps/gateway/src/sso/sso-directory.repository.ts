import { Injectable } from '@nestjs/common';
import type { TeamRole } from '@app/contracts';
import { TeamsRepository } from '../accounts/teams.repository.js';
import { UsersRepository } from '../accounts/users.repository.js';
import type { Membership } from './sso-claims.js';
import { SsoDirectory } from './sso-directory.js';

/** SsoDirectory over the accounts feature's repositories (its tables, which its commands write). */
@Injectable()
export class SsoDirectoryRepository extends SsoDirectory {
  constructor(
    private readonly users: UsersRepository,
    private readonly teams: TeamsRepository,
  ) {
    super();
  }

  async userBySubject(ssoSubject: string): Promise<{ id: string; name: string } | null> {
    const user = await this.users.findBySsoSubject(ssoSubject);
    return user && { id: user.id, name: user.name };
  }

  async teamByName(name: string): Promise<{ id: string; name: string } | null> {
    const team = await this.teams.findTeam(name);
    return team && team.name === name ? { id: team.id, name: team.name } : null;
  }

  async membershipsOf(userId: string): Promise<Membership[]> {
    const teams = await this.teams.teams({ userId });
    return teams
      .map((team) => ({ teamId: team.id, teamName: team.name, role: team.role! }))
      .sort((a, b) => a.teamName.localeCompare(b.teamName));
  }

  async roleIn(userId: string, teamId: string): Promise<TeamRole | null> {
    return (await this.teams.member(teamId, userId))?.role ?? null;
  }
}
