import { Injectable, Logger } from '@nestjs/common';
import { type Actor, DomainError, ErrorCode, Subjects } from '@app/contracts';
import { CommandBus } from '@app/messaging';
import { GatewayConfig } from '../gateway.config.js';
import {
  accountNameFrom,
  type Claims,
  type GroupTeam,
  groupsOf,
  membershipChanges,
  parseGroupTeams,
  ssoSubjectOf,
  teamRolesFor,
  withSuffix,
} from './sso-claims.js';
import { SsoDirectory } from './sso-directory.js';

/** Sign-in acts as the platform: the changes are the identity provider's word, recorded with that reason. */
const SSO_ACTOR: Actor = { userId: 'system:sso', kind: 'system', reason: 'single sign-on' };

/**
 * Makes the accounts what a sign-in's claims say, through the recorded account commands (so the audit trail and a
 * rebuild see them): the user on a first sign-in (`account.cmd.create-user` with the provider's subject), then
 * the memberships of the teams OIDC_GROUP_TEAMS names (`create-team` for one that does not exist yet,
 * `add-member`, `set-member-role`, `remove-member`). The membership changes are best effort: one refused (an
 * owner's role, say) is logged and the sign-in goes on; the user's creation is not.
 */
@Injectable()
export class SsoProvisioning {
  private readonly logger = new Logger('sso');
  private readonly mapping: GroupTeam[];
  private readonly groupsClaim: string;

  constructor(
    config: GatewayConfig,
    private readonly commands: CommandBus,
    private readonly directory: SsoDirectory,
  ) {
    this.mapping = parseGroupTeams(config.OIDC_GROUP_TEAMS);
    this.groupsClaim = config.OIDC_GROUPS_CLAIM;
  }

  /** The user id the claims sign in as, after creating the user and bringing the memberships in line. */
  async provision(issuer: string, claims: Claims): Promise<{ id: string; name: string }> {
    const subject = ssoSubjectOf(issuer, claims);
    const user = (await this.directory.userBySubject(subject)) ?? (await this.createUser(subject, claims));
    // An absent claim means the groups are unknown (userinfo failed): memberships stay as they are.
    if (claims[this.groupsClaim] !== undefined && this.mapping.length > 0) {
      await this.syncMemberships(user.id, groupsOf(claims, this.groupsClaim));
    }
    return user;
  }

  private async createUser(subject: string, claims: Claims): Promise<{ id: string; name: string }> {
    const name = accountNameFrom(claims);
    for (const candidate of [name, withSuffix(name, subject)]) {
      try {
        const view = await this.commands.execute(
          Subjects.account.createUser,
          { name: candidate, ssoSubject: subject },
          SSO_ACTOR,
        );
        this.logger.log(`first sign-in of ${subject}: user ${view.id} (${view.name})`);
        return { id: view.id, name: view.name };
      } catch (error) {
        // The name is taken (by a user or a team): one more try with a suffix of the subject.
        if (!(error instanceof DomainError && error.code === ErrorCode.Conflict)) throw error;
      }
    }
    throw new DomainError(ErrorCode.Conflict, `no free account name for ${name}: ask an operator to rename`);
  }

  private async syncMemberships(userId: string, groups: string[]): Promise<void> {
    const wanted = teamRolesFor(groups, this.mapping);
    const current = await this.directory.membershipsOf(userId);
    const changes = membershipChanges(wanted, current, this.mapping);
    const attempt = async (what: string, run: () => Promise<unknown>) => {
      try {
        await run();
      } catch (error) {
        this.logger.warn(`sign-in of ${userId}: ${what} refused: ${(error as Error).message}`);
      }
    };
    for (const { team, role } of changes.add) {
      await attempt(`joining ${team} as ${role}`, async () => {
        const teamId = (await this.directory.teamByName(team))?.id ?? (await this.createTeam(team));
        await this.commands.execute(
          Subjects.account.addMember,
          { teamId, user: userId, role, asOperator: true },
          SSO_ACTOR,
        );
      });
    }
    for (const { teamId, team, role } of changes.setRole) {
      await attempt(`role ${role} in ${team}`, () =>
        this.commands.execute(
          Subjects.account.setMemberRole,
          { teamId, userId, role, asOperator: true },
          SSO_ACTOR,
        ),
      );
    }
    for (const { teamId, team } of changes.remove) {
      await attempt(`leaving ${team}`, () =>
        this.commands.execute(Subjects.account.removeMember, { teamId, userId, asOperator: true }, SSO_ACTOR),
      );
    }
  }

  /** A team the mapping names that nobody made yet: made by the platform, with no member until this one joins. */
  private async createTeam(name: string): Promise<string> {
    const view = await this.commands.execute(Subjects.account.createTeam, { name }, SSO_ACTOR);
    this.logger.log(`team ${view.id} (${name}) created for the group mapping`);
    return view.id;
  }
}
