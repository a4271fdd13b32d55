import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { TeamRole } from '@app/contracts';
import { TeamMemberEntity } from './team-member.entity.js';
import { TeamEntity } from './team.entity.js';
import { UserEntity } from './user.entity.js';

/** A member with the user's name, as the team routes show it. */
export interface NamedMember extends TeamMemberEntity {
  name: string;
}

/** A team with the number of its members and, for a user's listing, that user's role. */
export interface TeamWithCount extends TeamEntity {
  members: number;
  role?: TeamRole;
}

/** Teams and their members. Reads without a manager use the pool; the account handlers pass theirs. */
@Injectable()
export class TeamsRepository {
  private readonly membersTable: string;

  constructor(private readonly dataSource: DataSource) {
    this.membersTable = dataSource.getMetadata(TeamMemberEntity).tablePath;
  }

  private m(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  findTeam(idOrName: string, manager?: EntityManager): Promise<TeamEntity | null> {
    return this.m(manager).findOne(TeamEntity, { where: [{ id: idOrName }, { name: idOrName }] });
  }

  /** The team, locked until the transaction ends: member changes of one team apply one at a time. */
  lockTeam(id: string, manager: EntityManager): Promise<TeamEntity | null> {
    return manager.findOne(TeamEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  insertTeam(team: TeamEntity, manager: EntityManager): Promise<unknown> {
    return manager.insert(TeamEntity, team);
  }

  async renameTeam(id: string, name: string, manager: EntityManager): Promise<void> {
    await manager.update(TeamEntity, { id }, { name });
  }

  /** Deletes the team and its memberships. */
  async deleteTeam(id: string, manager: EntityManager): Promise<void> {
    await manager.delete(TeamMemberEntity, { teamId: id });
    await manager.delete(TeamEntity, { id });
  }

  member(teamId: string, userId: string, manager?: EntityManager): Promise<TeamMemberEntity | null> {
    return this.m(manager).findOneBy(TeamMemberEntity, { teamId, userId });
  }

  insertMember(member: TeamMemberEntity, manager: EntityManager): Promise<unknown> {
    return manager.insert(TeamMemberEntity, member);
  }

  async setRole(teamId: string, userId: string, role: TeamRole, manager: EntityManager): Promise<void> {
    await manager.update(TeamMemberEntity, { teamId, userId }, { role });
  }

  async removeMember(teamId: string, userId: string, manager: EntityManager): Promise<void> {
    await manager.delete(TeamMemberEntity, { teamId, userId });
  }

  countOwners(teamId: string, manager: EntityManager): Promise<number> {
    return manager.countBy(TeamMemberEntity, { teamId, role: 'owner' });
  }

  /** The teams a user is a member of. */
  memberships(userId: string, manager?: EntityManager): Promise<TeamMemberEntity[]> {
    return this.m(manager).find(TeamMemberEntity, { where: { userId }, order: { teamId: 'ASC' } });
  }

  async members(teamId: string, manager?: EntityManager): Promise<NamedMember[]> {
    const rows = await this.m(manager)
      .createQueryBuilder(TeamMemberEntity, 'm')
      .innerJoin(UserEntity, 'u', 'u.id = m.user_id')
      .select(['m.team_id AS "teamId"', 'm.user_id AS "userId"', 'm.role AS role', 'm.added_at AS "addedAt"'])
      .addSelect('u.name', 'name')
      .where('m.team_id = :teamId', { teamId })
      .orderBy('m.added_at', 'ASC')
      .addOrderBy('m.user_id', 'ASC')
      .getRawMany<NamedMember>();
    return rows;
  }

  /**
   * Teams with their member counts: every team (an operator's listing), one (`teamId`), or those of one user with
   * their role.
   */
  async teams(
    of: { userId?: string; teamId?: string } = {},
    manager?: EntityManager,
  ): Promise<TeamWithCount[]> {
    const query = this.m(manager)
      .createQueryBuilder(TeamEntity, 't')
      .select(['t.id AS id', 't.name AS name', 't.created_at AS "createdAt"'])
      .addSelect(`(SELECT count(*)::int FROM ${this.membersTable} c WHERE c.team_id = t.id)`, 'members')
      .orderBy('t.created_at', 'ASC')
      .addOrderBy('t.id', 'ASC');
    if (of.teamId) query.where('t.id = :teamId', { teamId: of.teamId });
    if (of.userId) {
      query
        .innerJoin(TeamMemberEntity, 'm', 'm.team_id = t.id AND m.user_id = :userId', { userId: of.userId })
        .addSelect('m.role', 'role');
    }
    return query.getRawMany<TeamWithCount>();
  }
}
