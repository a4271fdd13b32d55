import { Injectable } from '@nestjs/common';
import {
  DEFAULT_QUOTA_ACCOUNT,
  DomainError,
  ErrorCode,
  Subjects,
  type QuotaSetResult,
  type SetQuotaCommand,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { CatalogChecks } from '../../catalog/catalog.checks.js';
import { LedgerLock } from '../ledger-lock.js';
import { quotaBreaches } from '../quota-ledger.js';
import { QuotaEntity, type StoredLimit } from '../quota.entity.js';
import { QuotasRepository } from '../quotas.repository.js';

function invalid(error: string): DomainError {
  return new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [error]);
}

/**
 * `quota.cmd.set` (operators, through the gateway): replaces an account's quota, or the default (`*`). The limits
 * name catalog GPU types and data centers, one limit per key; no limits and no cohort remove the quota. Admissions
 * after it count against the new limits. It takes the placement ledger's lock, as admissions do.
 */
@Injectable()
export class SetQuotaHandler {
  constructor(
    private readonly quotas: QuotasRepository,
    private readonly checks: CatalogChecks,
    private readonly ledger: LedgerLock,
  ) {}

  @CommandHandler(Subjects.quota.set)
  async handle(ctx: CommandContext<SetQuotaCommand>): Promise<QuotaSetResult> {
    const { payload, manager } = ctx;
    const isDefault = payload.accountId === DEFAULT_QUOTA_ACCOUNT;
    const cohort = payload.cohort ?? null;
    if (isDefault && cohort !== null) {
      throw invalid('cohort must be null on the default quota: a cohort is chosen per team');
    }
    const limits: StoredLimit[] = [];
    const keys = new Set<string>();
    for (const [i, limit] of payload.limits.entries()) {
      await this.checks.gpuType(`limits.${i}.gpuTypeId`, limit.gpuTypeId, manager);
      const dataCenterId = limit.dataCenterId ?? null;
      if (dataCenterId !== null) {
        await this.checks.dataCenter(`limits.${i}.dataCenterId`, dataCenterId, manager);
      }
      const key = `${limit.gpuTypeId}\u0000${dataCenterId ?? ''}`;
      if (keys.has(key)) {
        throw invalid(
          `limits.${i}: a second limit for ${limit.gpuTypeId}${dataCenterId ? ` in ${dataCenterId}` : ''}; one per GPU type and data center`,
        );
      }
      keys.add(key);
      limits.push({
        gpuTypeId: limit.gpuTypeId,
        dataCenterId,
        gpus: limit.gpus,
        borrowingLimit: limit.borrowingLimit ?? null,
      });
    }
    await this.ledger.lock(manager);
    if (!limits.length && cohort === null) {
      await this.quotas.remove(payload.accountId, manager);
    } else {
      await this.quotas.save(
        Object.assign(new QuotaEntity(), {
          accountId: payload.accountId,
          accountName: payload.accountName ?? null,
          cohort,
          limits,
          updatedAt: ctx.now,
        }),
        manager,
      );
    }
    // Nothing is preempted for a quota change: one that would leave an account or a cohort above its limits is
    // refused, and the operator lowers it once the work above it has stopped.
    const quotas = await this.quotas.inForce(manager);
    const breaches = quotaBreaches(
      quotas,
      await this.quotas.usageByType(
        quotas.map((q) => q.accountId),
        manager,
      ),
    );
    if (breaches.length) {
      throw new DomainError(
        ErrorCode.InvalidState,
        'the quota would be below what is in use now; stop or terminate work first, or set a higher limit',
        breaches,
      );
    }
    return { accountId: payload.accountId, removed: !limits.length && cohort === null };
  }
}
