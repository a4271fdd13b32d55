import { Injectable } from '@nestjs/common';
import { Subjects, type Actor, type SpendStatus } from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';

/** The account's spend limits, kept by pod-lifecycle (docs/adr/0023-spend-limits.md). */
@Injectable()
export class SpendLimitService {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  status(actor: Actor): Promise<SpendStatus> {
    return this.queries.query(Subjects.spend.status, {}, actor);
  }

  /** Sets (or clears: null) the user's own limit, then answers the status it leads to. */
  async setOwn(monthlyLimit: number | null, actor: Actor): Promise<SpendStatus> {
    await this.commands.execute(
      Subjects.spend.setLimit,
      { userId: actor.userId, setBy: 'user', monthlyLimit },
      actor,
    );
    return this.status(actor);
  }
}
