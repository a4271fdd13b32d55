import { Injectable } from '@nestjs/common';
import {
  DEFAULT_QUOTA_ACCOUNT,
  DomainError,
  Subjects,
  type QuotaHistoryView,
  type QuotaInput,
  type QuotaListView,
  type QuotaView,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
import type { Principal } from '../accounts/principal.js';
import { TeamsRepository } from '../accounts/teams.repository.js';
import { actorOf } from '../auth/auth.decorators.js';

/**
 * The quota routes (docs/api.md, "Quotas"): the cluster scheduler keeps the quotas and admits against them
 * (`quota.cmd.set`, `quota.qry.*`); the gateway checks who may ask. Operators set every team's quota and the
 * default (the routes' `@Auth({operator: true})`); any member of a team reads its quota, as the team routes let
 * them see the team. A team key acts for its team only: through it no other team exists.
 */
@Injectable()
export class QuotasService {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  private operator(principal: Principal): boolean {
    return principal.key.scope === 'operator';
  }

  /** The team's name, once it exists (404 otherwise): an operator's route, any team. */
  private async teamName(teamId: string): Promise<string> {
    const [team] = await this.teams.teams({ teamId });
    if (!team) throw DomainError.notFound('team', teamId);
    return team.name;
  }

  /** 404 unless the caller may see the team: a member (through their own key or the team's), or an operator. */
  private async readable(principal: Principal, teamId: string): Promise<void> {
    const foreign = principal.account.kind === 'team' && principal.account.id !== teamId;
    const [team] = foreign ? [] : await this.teams.teams({ teamId });
    const member = team ? await this.teams.member(team.id, principal.user.id) : null;
    if (!team || (!member && !this.operator(principal))) throw DomainError.notFound('team', teamId);
  }

  async setTeam(principal: Principal, teamId: string, input: QuotaInput): Promise<QuotaView> {
    const accountName = await this.teamName(teamId);
    return this.set(principal, teamId, input, accountName);
  }

  /** No limits and no cohort: the team's own quota goes, and the default applies to it again. */
  async clearTeam(principal: Principal, teamId: string): Promise<void> {
    const accountName = await this.teamName(teamId);
    await this.apply(principal, teamId, { cohort: null, limits: [] }, accountName);
  }

  async team(principal: Principal, teamId: string): Promise<QuotaView> {
    await this.readable(principal, teamId);
    return this.get(principal, teamId);
  }

  async teamHistory(principal: Principal, teamId: string, windowSeconds: number): Promise<QuotaHistoryView> {
    await this.readable(principal, teamId);
    return this.queries.query(
      Subjects.quota.history,
      { accountId: teamId, windowSeconds },
      actorOf(principal),
    );
  }

  /** The quota of the account the key acts for: its team's for a team key, the user's own otherwise. */
  account(principal: Principal): Promise<QuotaView> {
    return this.get(principal, principal.account.id);
  }

  list(principal: Principal): Promise<QuotaListView> {
    return this.queries.query(Subjects.quota.list, {}, actorOf(principal));
  }

  defaultQuota(principal: Principal): Promise<QuotaView> {
    return this.get(principal, DEFAULT_QUOTA_ACCOUNT);
  }

  setDefault(principal: Principal, input: QuotaInput): Promise<QuotaView> {
    return this.set(principal, DEFAULT_QUOTA_ACCOUNT, input);
  }

  async clearDefault(principal: Principal): Promise<void> {
    await this.apply(principal, DEFAULT_QUOTA_ACCOUNT, { cohort: null, limits: [] });
  }

  private get(principal: Principal, accountId: string): Promise<QuotaView> {
    return this.queries.query(Subjects.quota.get, { accountId }, actorOf(principal));
  }

  /** Sets the quota, then reads its view: the scheduler's answer to the set is what it decided, not the view. */
  private async set(
    principal: Principal,
    accountId: string,
    input: QuotaInput,
    accountName?: string,
  ): Promise<QuotaView> {
    await this.apply(principal, accountId, input, accountName);
    return this.get(principal, accountId);
  }

  private async apply(
    principal: Principal,
    accountId: string,
    input: QuotaInput,
    accountName?: string,
  ): Promise<void> {
    await this.commands.execute(
      Subjects.quota.set,
      {
        accountId,
        ...(accountName ? { accountName } : {}),
        cohort: input.cohort ?? null,
        limits: input.limits.map((limit) => ({
          gpuTypeId: limit.gpuTypeId,
          dataCenterId: limit.dataCenterId ?? null,
          gpus: limit.gpus,
          borrowingLimit: limit.borrowingLimit ?? null,
        })),
      },
      actorOf(principal),
    );
  }
}
