import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { TeamRole } from '@app/contracts';

/** A user's membership of a team, with their one role there. */
@Entity({ name: 'team_members' })
export class TeamMemberEntity {
  @PrimaryColumn({ name: 'team_id', type: 'text' })
  teamId: string;

  @Index('team_members_user_idx')
  @PrimaryColumn({ name: 'user_id', type: 'text' })
  userId: string;

  @Column({ type: 'text' })
  role: TeamRole;

  @Column({ name: 'added_at', type: 'timestamptz' })
  addedAt: Date;
}
