import type { QuotaLimitView, QuotaView } from '@app/contracts';
import { when } from '../../ui';

const SOURCES: Record<QuotaView['source'], string> = {
  account: 'its own quota',
  default: "the operator's default quota",
  none: 'no quota: unlimited',
};

/** What a limit counts: one GPU type, in one data center or in all. */
export function limitName(limit: Pick<QuotaLimitView, 'gpuTypeId' | 'dataCenterId'>): string {
  return `${limit.gpuTypeId}${limit.dataCenterId ? ` in ${limit.dataCenterId}` : ', every data center'}`;
}

/** Where the quota comes from, its cohort, its preemptions and when it was last set (the default: the last two). */
export function QuotaSummary({ quota }: { quota: QuotaView }) {
  const isDefault = quota.accountId === '*';
  return (
    <dl className="facts">
      {!isDefault && (
        <>
          <dt>Governed by</dt>
          <dd>{SOURCES[quota.source]}</dd>
        </>
      )}
      <dt>Cohort</dt>
      <dd>{quota.cohort ?? 'none (lends and borrows nothing)'}</dd>
      {!isDefault && (
        <>
          <dt>Preempted</dt>
          <dd>
            {quota.preempted.lastMinute} in the last minute, {quota.preempted.total} in all
          </dd>
        </>
      )}
      <dt>Last set</dt>
      <dd>{when(quota.updatedAt)}</dd>
    </dl>
  );
}

/** Each limit with what the account holds against it: in use, borrowed above its share, lent to its cohort. */
export function QuotaLimits({ quota, label }: { quota: QuotaView; label: string }) {
  if (quota.limits.length === 0) {
    return <p className="muted">No limits: the account may use any number of GPUs the fleet has free.</p>;
  }
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          <th scope="col">GPU type</th>
          <th scope="col">Data center</th>
          <th scope="col">Quota (GPUs)</th>
          <th scope="col">May borrow</th>
          <th scope="col">In use</th>
          <th scope="col">Borrowed</th>
          <th scope="col">Lent</th>
        </tr>
      </thead>
      <tbody>
        {quota.limits.map((limit) => (
          <tr key={`${limit.gpuTypeId}|${limit.dataCenterId ?? ''}`}>
            <th scope="row">{limit.gpuTypeId}</th>
            <td>{limit.dataCenterId ?? 'every one'}</td>
            <td>{limit.gpus}</td>
            <td>{limit.borrowingLimit ?? (quota.cohort ? 'what the cohort lends' : '—')}</td>
            <td>
              {limit.inUse}
              {limit.inUse > limit.gpus && (
                <>
                  {' '}
                  <span className="badge badge-warn">over its share</span>
                </>
              )}
            </td>
            <td>{limit.borrowed}</td>
            <td>{limit.lent}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
