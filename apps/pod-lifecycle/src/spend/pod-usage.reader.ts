import type { UsageInterval } from '@app/contracts';

/**
 * The metered pod usage the ledger sums: answered by the pods feature, which records it (PodUsageRepository,
 * handed to `SpendModule.register`), so spend depends on no feature and pods may check the limit.
 */
export abstract class PodUsageReader {
  /** The owner's usage intervals that overlap [from, to), each with its kind (the accrual key). */
  abstract overlapping(
    ownerId: string,
    from: Date,
    to: Date,
  ): Promise<Array<Omit<UsageInterval, 'key'> & { kind: string }>>;
}
