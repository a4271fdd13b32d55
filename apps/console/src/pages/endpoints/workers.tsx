import { useState } from 'react';
import { ToggleButton } from 'react-aria-components';
import { useQuery } from '@tanstack/react-query';
import type { WorkerList } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Loading, Section, StatusBadge, when } from '../../ui';
import { PodLogs } from '../pods/pod-logs';

export function Workers({ id }: { id: string }) {
  const [logsOf, setLogsOf] = useState<string | null>(null);
  const workers = useQuery({
    queryKey: ['endpoint', id, 'workers'],
    queryFn: () => api<WorkerList>(`/v2/serverless/${id}/workers`),
    refetchInterval: 2000,
  });
  return (
    <Section title="Workers">
      <ErrorBox error={workers.error} />
      {!workers.data ? (
        <Loading what="workers" />
      ) : workers.data.workers.length === 0 ? (
        <p className="muted">No workers: one starts when a job waits (or workers min is above 0).</p>
      ) : (
        <table aria-label="Workers">
          <thead>
            <tr>
              <th scope="col">Worker</th>
              <th scope="col">Status</th>
              <th scope="col">Pod</th>
              <th scope="col">Jobs</th>
              <th scope="col">Last seen</th>
              <th scope="col">
                <span className="sr-only">Logs</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {workers.data.workers.map((w) => (
              <tr key={w.id}>
                <td>
                  <code>{w.id}</code>
                </td>
                <td>
                  <StatusBadge status={w.status} />
                  {w.isStale && ' (stale)'}
                </td>
                <td>{w.podStatus ?? '—'}</td>
                <td>{w.currentJobCount}</td>
                <td>{when(w.lastSeenAt)}</td>
                <td>
                  {w.podId && (
                    <ToggleButton
                      className="secondary small"
                      isSelected={logsOf === w.id}
                      onChange={() => setLogsOf(logsOf === w.id ? null : w.id)}
                    >
                      Logs of {w.id.slice(0, 6)}…
                    </ToggleButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {logsOf && <PodLogs path={`/v2/serverless/${id}/workers/${logsOf}/logs`} />}
    </Section>
  );
}
