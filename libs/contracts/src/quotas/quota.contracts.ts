import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/** The account id under which the operator's default quota is kept: it applies to every account without one. */
export const DEFAULT_QUOTA_ACCOUNT = '*';

/** A cohort's name: lower-case letters, digits and dashes. */
export const COHORT_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** One limit: GPUs of one type (in one data center, or across all), and how many more it may borrow. */
export class QuotaLimitInput {
  @IsString()
  @IsNotEmpty()
  gpuTypeId: string;

  /** Absent or null: the limit counts the type's GPUs in every data center. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  dataCenterId?: string | null;

  /** The team's own (nominal) share. */
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  @Type(() => Number)
  gpus: number;

  /** GPUs it may use beyond `gpus` from its cohort's idle quota; absent or null: as many as the cohort lends. */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  @Type(() => Number)
  borrowingLimit?: number | null;
}

/** `PUT /v2/teams/{id}/quota` and `PUT /v2/quotas/default`: the whole quota, replacing the one before. */
export class QuotaInput {
  /** Teams of one cohort lend each other their idle quota; absent or null: none. */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @Matches(COHORT_NAME, { message: 'cohort must be lower-case letters, digits and dashes (at most 63)' })
  cohort?: string | null;

  @IsArray()
  @ArrayMaxSize(256)
  @ValidateNested({ each: true })
  @Type(() => QuotaLimitInput)
  limits: QuotaLimitInput[];
}

/**
 * `quota.cmd.set` (owner: cluster-scheduler; operators only, checked by the gateway): replaces an account's quota
 * (`*`: the default). No limits and no cohort: the quota goes (the account falls back to the default).
 */
export class SetQuotaCommand extends QuotaInput {
  @IsString()
  @IsNotEmpty()
  accountId: string;

  /** The account's name when set, for refusals that name the team. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  accountName?: string;
}

/** `quota.cmd.sample`: the leader's minute tick; the samples are dated by the command. */
export class SampleQuotasCommand {}

/** What a sample tick wrote. */
export interface QuotaSampleResult {
  samples: number;
}

/**
 * What `quota.cmd.set` answers: what it decided, not the view (whose use follows placements a rebuild applies at
 * other moments); the gateway reads the view after it.
 */
export interface QuotaSetResult {
  accountId: string;
  /** True when the command removed the quota (no limits and no cohort). */
  removed: boolean;
}

export class GetQuotaQuery {
  @IsString()
  @IsNotEmpty()
  accountId: string;
}

export class ListQuotasQuery {}

/** `GET /v2/teams/{id}/quota/history`: samples since `since` (ISO), at most a week back. */
export class QuotaHistoryQuery {
  @IsString()
  @IsNotEmpty()
  accountId: string;

  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(7 * 24 * 3600)
  @Type(() => Number)
  windowSeconds?: number;
}

/** One limit with what the account holds against it now. */
export interface QuotaLimitView {
  gpuTypeId: string;
  dataCenterId: string | null;
  gpus: number;
  borrowingLimit: number | null;
  /** GPUs the account holds that this limit counts (pods, cluster members, serverless workers). */
  inUse: number;
  /** Of `inUse`, the GPUs above `gpus`: borrowed from the cohort, and preemptible. */
  borrowed: number;
  /** Of the account's idle share (`gpus` − `inUse`), what other cohort members use now. */
  lent: number;
}

export interface QuotaView {
  accountId: string;
  accountName: string | null;
  /** `account`: its own; `default`: the operator's default applies; `none`: unlimited. */
  source: 'account' | 'default' | 'none';
  cohort: string | null;
  limits: QuotaLimitView[];
  /** Workloads of this account preempted in the last minute, and in all. */
  preempted: { lastMinute: number; total: number };
  updatedAt: string | null;
}

export interface QuotaListView {
  /** The operator's default, or null. */
  default: QuotaView | null;
  /** Every account with its own quota, by id. */
  quotas: QuotaView[];
}

/** One sample of an account's use of one limit (the scheduler samples every minute). */
export interface QuotaSample {
  at: string;
  gpuTypeId: string;
  dataCenterId: string | null;
  gpus: number;
  inUse: number;
  borrowed: number;
  lent: number;
}

export interface QuotaHistoryView {
  accountId: string;
  samples: QuotaSample[];
}
