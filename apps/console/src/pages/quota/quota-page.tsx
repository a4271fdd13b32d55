import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { QuotaHistoryView, QuotaSample, QuotaView, TeamList } from '@app/contracts';
import { api } from '../../api';
import { SelectInput } from '../../controls';
import { ErrorBox, Field, Loading, Section, useSession } from '../../ui';
import { QuotaChart } from './quota-chart';
import { limitName, QuotaLimits, QuotaSummary } from './quota-limits';

/** The route's choice for the key's own account (`#/quota/account`); a team is chosen by its id. */
const OWN = 'account';

const WINDOWS = [
  { id: '3600', label: 'Last hour' },
  { id: '86400', label: 'Last 24 hours' },
  { id: '604800', label: 'Last 7 days' },
] as const;
type Span = (typeof WINDOWS)[number]['id'];

/** The samples of one limit, oldest first. */
function samplesOf(history: QuotaHistoryView, key: string): QuotaSample[] {
  return history.samples
    .filter((s) => `${s.gpuTypeId}|${s.dataCenterId ?? ''}` === key)
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/**
 * A team's GPU quota (`/v2/teams/{id}/quota`, or the key's own account's, `/v2/account/quota`): its limits with what
 * the team holds, borrows and lends, its preemptions, and a chart of each limit's use over time from the history
 * route. `#/quota/<teamId>` opens a team (the All quotas page links here); a team key starts at its team.
 */
export function QuotaPage({ route }: { route: string[] }) {
  const session = useSession();
  const ownTeam =
    session.key.teamId ?? (session.sso?.account.kind === 'team' ? session.sso.account.id : undefined);
  const chosen = route[0] ?? ownTeam ?? OWN;
  const [span, setSpan] = useState<Span>('3600');
  const [limitKey, setLimitKey] = useState<string | null>(null);
  const teams = useQuery({ queryKey: ['teams'], queryFn: () => api<TeamList>('/v2/teams') });
  const isTeam = chosen !== OWN;
  const quota = useQuery({
    queryKey: ['quota', chosen],
    queryFn: () =>
      api<QuotaView>(isTeam ? `/v2/teams/${encodeURIComponent(chosen)}/quota` : '/v2/account/quota'),
    refetchInterval: 15_000,
  });
  const history = useQuery({
    queryKey: ['quota', chosen, 'history', span],
    queryFn: () =>
      api<QuotaHistoryView>(`/v2/teams/${encodeURIComponent(chosen)}/quota/history?windowSeconds=${span}`),
    enabled: isTeam,
    refetchInterval: 60_000,
  });
  const choices = [
    ...(ownTeam ? [] : [{ id: OWN, label: 'Your own account' }]),
    ...(teams.data?.teams ?? []).map((t) => ({ id: t.id, label: `Team ${t.name}` })),
  ];
  if (!choices.some((c) => c.id === chosen)) choices.push({ id: chosen, label: chosen });
  // A team under the default has no name in its quota's view: the team list has it.
  const team = teams.data?.teams.find((t) => t.id === chosen);
  const name = quota.data?.accountName ?? team?.name ?? (isTeam ? 'the team' : 'your account');
  const limits = quota.data?.limits ?? [];
  const shown = limits.find((l) => `${l.gpuTypeId}|${l.dataCenterId ?? ''}` === limitKey) ?? limits[0];
  const shownKey = shown ? `${shown.gpuTypeId}|${shown.dataCenterId ?? ''}` : '';
  return (
    <>
      <Section title={`Quota of ${name}`}>
        <div className="row filters">
          <Field label="Account">
            {(id) => (
              <select
                id={id}
                value={chosen}
                onChange={(e) => (window.location.hash = `#/quota/${encodeURIComponent(e.target.value)}`)}
              >
                {choices.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <ErrorBox error={quota.error ?? teams.error} />
        {!quota.data ? (
          <Loading what="the quota" />
        ) : (
          <>
            <QuotaSummary quota={quota.data} />
            <QuotaLimits quota={quota.data} label="Limits" />
          </>
        )}
      </Section>
      <Section
        title="Use over time"
        actions={
          isTeam ? (
            <SelectInput label="Window" value={span} onChange={setSpan} options={WINDOWS} />
          ) : undefined
        }
      >
        {!isTeam ? (
          <p className="muted">The history of use is kept per team: choose a team above.</p>
        ) : limits.length === 0 ? (
          <p className="muted">No limits to chart.</p>
        ) : (
          <>
            {limits.length > 1 && (
              <div className="row filters">
                <SelectInput
                  label="Limit"
                  value={shownKey}
                  onChange={setLimitKey}
                  options={limits.map((l) => ({
                    id: `${l.gpuTypeId}|${l.dataCenterId ?? ''}`,
                    label: limitName(l),
                  }))}
                />
              </div>
            )}
            <ErrorBox error={history.error} />
            {!history.data ? (
              <Loading what="the history" />
            ) : (
              <QuotaChart title={`GPUs of ${limitName(shown)}`} samples={samplesOf(history.data, shownKey)} />
            )}
          </>
        )}
      </Section>
    </>
  );
}
