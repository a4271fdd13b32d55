import {
  IsBoolean,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { DomainError } from '../errors/domain-error.js';
import { ErrorCode } from '../errors/error-code.js';

/** Who sets a monthly spend limit: the operator caps a user; the user may set a lower one of their own. */
export const SPEND_LIMIT_SETTERS = ['operator', 'user'] as const;
export type SpendLimitSetter = (typeof SPEND_LIMIT_SETTERS)[number];

/** The largest limit accepted (an amount in the fleet's price unit). */
export const SPEND_LIMIT_MAX = 1_000_000_000;

/**
 * `spend.cmd.set-limit` (pod-lifecycle): sets or clears (null) one of a user's two monthly limits. `operator` only
 * from a system actor (the operator CLI); `user` only for the actor's own account, and never above the operator's
 * cap. Recorded like every command, so a replay rebuilds the limits and the refusals they caused.
 */
export class SetSpendLimitCommand {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  userId: string;

  @IsIn(SPEND_LIMIT_SETTERS)
  setBy: SpendLimitSetter;

  @ValidateIf((command: SetSpendLimitCommand) => command.monthlyLimit !== null)
  @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 6 })
  @Min(0)
  @Max(SPEND_LIMIT_MAX)
  monthlyLimit: number | null;
}

/** Body of `PUT /v2/account/spend-limit`: the user's own monthly limit (null: none; the operator's cap still applies). */
export class SpendLimitDto {
  @ValidateIf((dto: SpendLimitDto) => dto.monthlyLimit !== null)
  @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 6 })
  @Min(0)
  @Max(SPEND_LIMIT_MAX)
  monthlyLimit: number | null;
}

/** `spend.qry.status` (pod-lifecycle): the actor's limits and spend this month (UTC) up to `at` (default: now). */
export class GetSpendStatusQuery {
  @IsOptional()
  @IsISO8601({ strict: true })
  at?: string;

  /** An owner's check before new GPU work: the spend is counted only when a limit applies (0 otherwise). */
  @IsOptional()
  @IsBoolean()
  check?: boolean;
}

/** A user's monthly spend limits. */
export interface SpendLimitView {
  userId: string;
  /** The operator's cap, null for none. */
  operatorLimit: number | null;
  /** The user's own limit (at most the cap), null for none. */
  userLimit: number | null;
  /** The limit that applies: the lower of the two, null when neither is set. */
  monthlyLimit: number | null;
}

/** `GET /v2/account/spend-limit`: the limits and what the month has cost so far. */
export interface SpendStatus extends SpendLimitView {
  /** The calendar month (UTC) the spend is counted in, e.g. `2026-11`. */
  month: string;
  /** Start of that month and the instant the spend is counted up to (ISO 8601). */
  startTime: string;
  endTime: string;
  /**
   * What the user's pods, clusters, serverless workers and network volumes accrued this month up to `endTime`
   * (ADR 21's metering; open usage counts up to `endTime`), to six decimals (an owner's check skips counting it when
   * no limit applies, and answers 0).
   */
  spend: number;
  /** `spend` ≥ `monthlyLimit`: new GPU work is refused (402) until the month ends or the limit is raised. */
  reached: boolean;
}

/** The first instant of the UTC calendar month of `at`. */
export function monthStartOf(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** The effective limit: the lower of the two that are set. */
export function effectiveSpendLimit(operatorLimit: number | null, userLimit: number | null): number | null {
  const set = [operatorLimit, userLimit].filter((limit): limit is number => limit !== null);
  return set.length ? Math.min(...set) : null;
}

/**
 * Refuses new GPU work (`what`, e.g. "pod create") when the limit is reached: SPEND_LIMIT_REACHED (HTTP 402),
 * naming the limit and the spend, identical from every owner that checks it.
 */
export function assertUnderSpendLimit(status: SpendStatus, what: string): void {
  if (!status.reached || status.monthlyLimit === null) return;
  const whose = status.monthlyLimit === status.userLimit ? 'your own' : "the operator's";
  throw new DomainError(
    ErrorCode.SpendLimitReached,
    `${what} refused: the monthly spend limit is reached (${whose} limit ${status.monthlyLimit}; spent ` +
      `${status.spend} in ${status.month} up to ${status.endTime}). Running work is not stopped; new GPU work is ` +
      'refused until the limit is raised or the month ends',
  );
}
