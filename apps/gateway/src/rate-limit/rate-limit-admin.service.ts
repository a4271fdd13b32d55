import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@app/contracts';
import { AccountsService } from '../accounts/accounts.service.js';
import { RateLimitOverrideEntity } from './rate-limit-override.entity.js';
import { RateLimitOverridesRepository } from './rate-limit-overrides.repository.js';
import {
  RATE_LIMIT_POLICY_NAMES,
  isRateLimitPolicyName,
  type RateLimitWindow,
} from '../rate-limit-policies.js';

/** A quota per window: a number sets it, null puts the default back, undefined leaves it as it is. */
export type QuotaChanges = Partial<Record<RateLimitWindow, number | null>>;

export interface OverrideView {
  userId: string;
  policy: string;
  minute: number | null;
  hour: number | null;
  day: number | null;
}

/** Per-user quota overrides and exemption, for operators (`npm run keys -- limits ...`). */
@Injectable()
export class RateLimitAdminService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly overrides: RateLimitOverridesRepository,
  ) {}

  /** Sets some of the user's quotas for one policy; returns the override as it now stands. */
  async setQuotas(userIdOrName: string, policy: string, changes: QuotaChanges): Promise<OverrideView> {
    const userId = await this.userId(userIdOrName);
    const name = checkPolicy(policy);
    for (const [window, value] of Object.entries(changes)) {
      if (
        value !== null &&
        value !== undefined &&
        (!Number.isInteger(value) || value < 0 || value > 999_999_999)
      ) {
        throw new DomainError(
          ErrorCode.ValidationFailed,
          `the ${window} quota must be an integer 0-999999999`,
        );
      }
    }
    const existing = await this.overrides.find(userId, name);
    const override = Object.assign(new RateLimitOverrideEntity(), {
      userId,
      policy: name,
      minuteQuota: changes.minute !== undefined ? changes.minute : (existing?.minuteQuota ?? null),
      hourQuota: changes.hour !== undefined ? changes.hour : (existing?.hourQuota ?? null),
      dayQuota: changes.day !== undefined ? changes.day : (existing?.dayQuota ?? null),
      updatedAt: new Date(),
    });
    if (override.minuteQuota === null && override.hourQuota === null && override.dayQuota === null) {
      await this.overrides.delete(userId, name);
    } else {
      await this.overrides.save(override);
    }
    return view(override);
  }

  /** Removes the user's override of one policy, or of all; returns how many were removed. */
  async clear(userIdOrName: string, policy?: string): Promise<number> {
    const userId = await this.userId(userIdOrName);
    return this.overrides.delete(userId, policy === undefined ? undefined : checkPolicy(policy));
  }

  async list(userIdOrName?: string): Promise<OverrideView[]> {
    const userId = userIdOrName === undefined ? undefined : await this.userId(userIdOrName);
    return (await this.overrides.list(userId)).map(view);
  }

  private async userId(userIdOrName: string): Promise<string> {
    const user = await this.accounts.findUser(userIdOrName);
    if (!user) throw DomainError.notFound('user', userIdOrName);
    return user.id;
  }
}

function checkPolicy(policy: string): (typeof RATE_LIMIT_POLICY_NAMES)[number] {
  if (!isRateLimitPolicyName(policy)) {
    throw new DomainError(
      ErrorCode.ValidationFailed,
      `unknown rate-limit policy ${policy}; one of ${RATE_LIMIT_POLICY_NAMES.join(', ')}`,
    );
  }
  return policy;
}

function view(o: RateLimitOverrideEntity): OverrideView {
  return { userId: o.userId, policy: o.policy, minute: o.minuteQuota, hour: o.hourQuota, day: o.dayQuota };
}

/** A quota as given on the command line: `default` (back to the configured default) or an integer. */
export function parseQuotaArgument(
  window: RateLimitWindow,
  value: string | undefined,
): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  if (!/^\d{1,9}$/.test(value)) {
    throw new DomainError(
      ErrorCode.ValidationFailed,
      `--${window} must be an integer 0-999999999 or "default"`,
    );
  }
  return Number.parseInt(value, 10);
}
