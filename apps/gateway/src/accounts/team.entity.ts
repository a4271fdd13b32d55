import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A team: an account several users share. It owns resources exactly as a user's own account does (the owner apps
 * see its id as the actor's `userId`); its name is unique among users and teams alike.
 */
@Entity({ name: 'teams' })
export class TeamEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text', unique: true })
  name: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
