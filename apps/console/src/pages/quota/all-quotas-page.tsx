import { useQueries, useQuery } from '@tanstack/react-query';
import type { QuotaListView, QuotaView, TeamList } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Loading, Section } from '../../ui';
import { QuotaLimits, QuotaSummary } from './quota-limits';

/** One row of the table: an account's limit, or the account alone when it has none. */
interface Row {
  quota: QuotaView;
  name: string;
  /** A team opens on the Quota page. */
  teamId?: string;
  limit?: QuotaView['limits'][number];
}

function rowsOf(quotas: { quota: QuotaView; name: string; teamId?: string }[]): Row[] {
  return quotas.flatMap(({ quota, name, teamId }) =>
    quota.limits.length
      ? quota.limits.map((limit) => ({ quota, name, teamId, limit }))
      : [{ quota, name, teamId }],
  );
}

/**
 * The operator's view of every quota (`GET /v2/quotas`, operator keys only): the default, and every team with its
 * quota and use: its own, or the default's, read per team (`/v2/teams/{id}/quota`) for the teams without one.
 */
export function AllQuotasPage() {
  const list = useQuery({
    queryKey: ['quotas'],
    queryFn: () => api<QuotaListView>('/v2/quotas'),
    refetchInterval: 15_000,
  });
  const teams = useQuery({ queryKey: ['teams'], queryFn: () => api<TeamList>('/v2/teams') });
  const own = new Set(list.data?.quotas.map((q) => q.accountId) ?? []);
  const others = (teams.data?.teams ?? []).filter((t) => !own.has(t.id));
  const byDefault = useQueries({
    queries: others.map((team) => ({
      queryKey: ['quota', team.id],
      queryFn: () => api<QuotaView>(`/v2/teams/${encodeURIComponent(team.id)}/quota`),
      refetchInterval: 15_000,
      enabled: Boolean(list.data),
    })),
  });
  const names = new Map((teams.data?.teams ?? []).map((t) => [t.id, t.name]));
  const accounts = [
    ...(list.data?.quotas ?? []).map((quota) => ({
      quota,
      name: quota.accountName ?? names.get(quota.accountId) ?? quota.accountId,
      teamId: names.has(quota.accountId) ? quota.accountId : undefined,
    })),
    ...others.flatMap((team, i) => {
      const quota = byDefault[i]?.data;
      return quota ? [{ quota, name: team.name, teamId: team.id }] : [];
    }),
  ].sort((a, b) => a.name.localeCompare(b.name));
  const rows = rowsOf(accounts);
  return (
    <>
      <Section title="Default quota">
        <ErrorBox error={list.error} />
        {!list.data ? (
          <Loading what="quotas" />
        ) : list.data.default ? (
          <>
            <p className="muted">
              Every account without a quota of its own, team or personal, is held to it.
            </p>
            <QuotaSummary quota={list.data.default} />
            <QuotaLimits quota={list.data.default} label="Default limits" />
          </>
        ) : (
          <p className="muted">No default: accounts without a quota of their own are unlimited.</p>
        )}
      </Section>
      <Section title="Teams">
        <ErrorBox error={teams.error ?? byDefault.find((q) => q.error)?.error} />
        {!list.data || !teams.data ? (
          <Loading what="teams" />
        ) : rows.length === 0 ? (
          <p className="muted">No teams yet.</p>
        ) : (
          <table aria-label="Quotas of every team">
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Quota</th>
                <th scope="col">Cohort</th>
                <th scope="col">GPU type</th>
                <th scope="col">Data center</th>
                <th scope="col">Quota (GPUs)</th>
                <th scope="col">In use</th>
                <th scope="col">Borrowed</th>
                <th scope="col">Lent</th>
                <th scope="col">Preempted</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ quota, name, teamId, limit }, i) => (
                <tr key={`${quota.accountId}|${limit?.gpuTypeId ?? ''}|${limit?.dataCenterId ?? ''}`}>
                  <th scope="row">
                    {/* One link per team, on its first row. */}
                    {teamId && rows[i - 1]?.quota !== quota ? (
                      <a href={`#/quota/${encodeURIComponent(teamId)}`}>{name}</a>
                    ) : (
                      name
                    )}
                  </th>
                  <td>
                    {quota.source === 'account' ? 'own' : quota.source === 'default' ? 'default' : 'none'}
                  </td>
                  <td>{quota.cohort ?? '—'}</td>
                  <td>{limit?.gpuTypeId ?? 'unlimited'}</td>
                  <td>{limit ? (limit.dataCenterId ?? 'every one') : '—'}</td>
                  <td>{limit?.gpus ?? '—'}</td>
                  <td>{limit?.inUse ?? '—'}</td>
                  <td>{limit?.borrowed ?? '—'}</td>
                  <td>{limit?.lent ?? '—'}</td>
                  <td>
                    {quota.preempted.total} ({quota.preempted.lastMinute} last minute)
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}
