import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  effectiveSpendLimit,
  type SetSpendLimitCommand,
  type SpendLimitView,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { SpendLimitEntity } from '../spend-limit.entity.js';
import { SpendLimitsRepository } from '../spend-limits.repository.js';

/**
 * `spend.cmd.set-limit`: the operator's cap (system actors only: the operator CLI) or the user's own limit (the
 * actor's own account only, never above the cap: 422 naming it), set or cleared (null). Lowering the cap below
 * the user's own limit lowers nothing else: the lower of the two applies. Effective for the next command that
 * starts GPU work; nothing running is touched.
 */
@Injectable()
export class SetSpendLimitHandler {
  constructor(private readonly limits: SpendLimitsRepository) {}

  @CommandHandler(Subjects.spend.setLimit)
  async handle(ctx: CommandContext<SetSpendLimitCommand>): Promise<SpendLimitView> {
    const { payload, envelope, manager } = ctx;
    const { actor } = envelope;
    if (payload.setBy === 'operator' && actor.kind !== 'system') {
      throw new DomainError(ErrorCode.Forbidden, "only the operator sets a user's spend cap");
    }
    if (actor.kind !== 'system' && payload.userId !== actor.userId) {
      throw new DomainError(ErrorCode.Forbidden, "a user sets only their own account's spend limit");
    }
    const current = await this.limits.lock(payload.userId, manager);
    const row = Object.assign(new SpendLimitEntity(), {
      userId: payload.userId,
      operatorLimit: current?.operatorLimit ?? null,
      userLimit: current?.userLimit ?? null,
      updatedAt: ctx.now,
    });
    if (payload.setBy === 'operator') row.operatorLimit = payload.monthlyLimit;
    else {
      if (
        payload.monthlyLimit !== null &&
        row.operatorLimit !== null &&
        payload.monthlyLimit > row.operatorLimit
      ) {
        throw new DomainError(ErrorCode.ValidationFailed, 'the spend limit failed validation', [
          `monthlyLimit: ${payload.monthlyLimit} is above the operator's cap of ${row.operatorLimit} (set a lower one, or null for the cap alone)`,
        ]);
      }
      row.userLimit = payload.monthlyLimit;
    }
    if (row.operatorLimit === null && row.userLimit === null) await this.limits.delete(row.userId, manager);
    else await this.limits.save(row, manager);
    return {
      userId: row.userId,
      operatorLimit: row.operatorLimit,
      userLimit: row.userLimit,
      monthlyLimit: effectiveSpendLimit(row.operatorLimit, row.userLimit),
    };
  }
}
