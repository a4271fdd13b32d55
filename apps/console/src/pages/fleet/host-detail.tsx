import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { HostDetailView } from '@app/contracts';
import { api } from '../../api';
import { ConfirmButton, TextInput } from '../../controls';
import { ErrorBox, Field, Loading, Section, useAction, when } from '../../ui';
import { HostStateCell, hostUse } from './host-state';

type HostAction = 'cordon' | 'uncordon' | 'drain' | 'remove';

/** What each action asks before it is done. */
const QUESTIONS: Record<HostAction, string> = {
  cordon: 'No new pods will be placed on it; what runs there keeps running.',
  uncordon: 'It takes new pods again; a drain in progress is called off.',
  drain:
    "No new pods; its serverless workers are replaced elsewhere, then stopped; users' pods are told and stopped at the deadline.",
  remove: 'It leaves the fleet (GONE). Registering it again brings it back.',
};

/** Which actions the host's scheduling state allows (its health aside: an unhealthy host may still be drained). */
function actionsOf(host: HostDetailView): HostAction[] {
  switch (host.scheduling.state) {
    case 'READY':
      return ['cordon', 'drain'];
    case 'CORDONED':
      return ['uncordon', 'drain'];
    case 'DRAINING':
      return ['cordon', 'uncordon', 'remove'];
    case 'GONE':
      return [];
  }
}

function HostFacts({ host }: { host: HostDetailView }) {
  return (
    <dl className="facts">
      <dt>State</dt>
      <dd>
        <HostStateCell host={host} />
      </dd>
      <dt>Data center</dt>
      <dd>{host.dataCenterId}</dd>
      <dt>In use</dt>
      <dd>{hostUse(host)}</dd>
      <dt>Address</dt>
      <dd>
        <code>{host.publicIp}</code> ports {host.portRange[0]}–{host.portRange[1]}
      </dd>
      <dt>Source</dt>
      <dd>{host.source}</dd>
      <dt>Scheduling</dt>
      <dd>
        {host.scheduling.state} by {host.scheduling.by} since {when(host.scheduling.since)}
        {host.scheduling.reason ? ` (${host.scheduling.reason})` : ''}
      </dd>
      <dt>Health</dt>
      <dd>
        {host.health.healthy
          ? `healthy${host.health.since ? ` since ${when(host.health.since)}` : ''}`
          : `unhealthy: ${host.health.code ?? ''}${host.health.gpuIndex !== null ? ` on GPU ${host.health.gpuIndex}` : ''}, ` +
            `${host.health.reason ?? 'no reason given'} (reported by ${host.health.source ?? '?'}, ${when(host.health.since)})`}
      </dd>
      {host.drainDeadline && (
        <>
          <dt>Drain deadline</dt>
          <dd>
            {when(host.drainDeadline)} {host.drained ? '(drained: it may be removed)' : ''}
          </dd>
        </>
      )}
    </dl>
  );
}

function HostActions({ host }: { host: HostDetailView }) {
  const [reason, setReason] = useState('');
  const [deadline, setDeadline] = useState('');
  const path = `/v2/fleet/hosts/${encodeURIComponent(host.id)}`;
  const act = useAction(
    (action: HostAction) => {
      const body = {
        ...(reason.trim() && action !== 'uncordon' && action !== 'remove' ? { reason: reason.trim() } : {}),
        ...(deadline.trim() && action === 'drain' ? { deadlineSeconds: Number(deadline) } : {}),
      };
      return action === 'remove'
        ? api<HostDetailView>(path, { method: 'DELETE' })
        : api<HostDetailView>(`${path}/${action}`, { method: 'POST', body });
    },
    [['fleet-host', host.id], ['fleet-hosts'], ['fleet-capacity']],
  );
  const actions = actionsOf(host);
  if (actions.length === 0) {
    return <p className="muted">A removed host takes no action; register it again to bring it back.</p>;
  }
  return (
    <>
      <div className="row">
        <TextInput
          label="Reason"
          hint="Shown with the host's state (cordon, drain)"
          value={reason}
          onChange={setReason}
        />
        {actions.includes('drain') && (
          <Field label="Drain deadline (seconds)" hint="Empty: the scheduler's default">
            {(id, describedBy) => (
              <input
                id={id}
                aria-describedby={describedBy}
                type="number"
                min={0}
                value={deadline}
                onChange={(e) => setDeadline(e.target.value)}
              />
            )}
          </Field>
        )}
      </div>
      <div className="row" role="group" aria-label="Host actions">
        {actions.map((action) => {
          const label = action[0].toUpperCase() + action.slice(1);
          return (
            <ConfirmButton
              key={action}
              label={label}
              title={`${label} host ${host.id}?`}
              question={QUESTIONS[action]}
              pending={act.isPending && act.variables === action}
              onConfirm={() => act.mutate(action)}
            />
          );
        })}
      </div>
      <ErrorBox error={act.error} />
    </>
  );
}

/** One host (`GET /v2/fleet/hosts/{id}`): its state and why, health, drain deadline, pods, and its actions. */
export function HostDetail({ id }: { id: string }) {
  const host = useQuery({
    queryKey: ['fleet-host', id],
    queryFn: () => api<HostDetailView>(`/v2/fleet/hosts/${encodeURIComponent(id)}`),
    refetchInterval: (q) => (q.state.data?.state === 'DRAINING' ? 1000 : 4000),
  });
  return (
    <>
      <p>
        <a href="#/fleet">← All hosts</a>
      </p>
      <ErrorBox error={host.error} />
      {!host.data ? (
        !host.error && <Loading what="the host" />
      ) : (
        <>
          <Section title={`Host ${host.data.id}`}>
            <HostFacts host={host.data} />
            <HostActions host={host.data} />
          </Section>
          <Section title="Pods on the host">
            {host.data.podsOnHost.length === 0 ? (
              <p className="muted">No pod holds capacity on it.</p>
            ) : (
              <table aria-label="Pods on the host">
                <thead>
                  <tr>
                    <th scope="col">Pod</th>
                    <th scope="col">Owner</th>
                    <th scope="col">Cluster</th>
                    <th scope="col">GPUs</th>
                    <th scope="col">Priority</th>
                    <th scope="col">Since</th>
                  </tr>
                </thead>
                <tbody>
                  {host.data.podsOnHost.map((pod) => (
                    <tr key={pod.podId}>
                      <th scope="row">
                        <code>{pod.podId}</code>
                      </th>
                      <td>{pod.ownerId}</td>
                      <td>{pod.clusterId ?? '—'}</td>
                      <td>{pod.gpuCount}</td>
                      <td>{pod.priority}</td>
                      <td>{when(pod.since)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Section>
        </>
      )}
    </>
  );
}
