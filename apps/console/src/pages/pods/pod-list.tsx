import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { PodStatus, PodV2List } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Loading, Section, StatusBadge, WaitReasonLine, WriteOnly, money } from '../../ui';
import { SelectInput, TextInput } from '../../controls';
import { CreatePod } from './create-pod';
import { MOVING, STATUSES } from './pod-status';

export function PodList() {
  const [status, setStatus] = useState<'' | PodStatus>('');
  const [search, setSearch] = useState('');
  const pods = useQuery({
    queryKey: ['pods'],
    queryFn: () => api<PodV2List>('/v2/pods?includeClusterPods=true'),
    refetchInterval: (q) => (q.state.data?.pods.some((p) => MOVING.has(p.status)) ? 2000 : 5000),
  });
  const shown =
    pods.data?.pods.filter(
      (p) =>
        (!status || p.status === status) && (!search || p.name.toLowerCase().includes(search.toLowerCase())),
    ) ?? [];
  return (
    <>
      <WriteOnly>
        <CreatePod />
      </WriteOnly>
      <Section title="Pods">
        <div className="row filters">
          <SelectInput<PodStatus | 'ANY'>
            label="Status"
            value={status || 'ANY'}
            onChange={(value) => setStatus(value === 'ANY' ? '' : value)}
            options={[{ id: 'ANY', label: 'Any' }, ...STATUSES.map((s) => ({ id: s, label: s }))]}
          />
          <TextInput label="Name contains" type="search" value={search} onChange={setSearch} />
        </div>
        <ErrorBox error={pods.error} />
        {!pods.data ? (
          <Loading what="pods" />
        ) : shown.length === 0 ? (
          <p className="muted">No pods{status || search ? ' match' : ' yet'}.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">GPU</th>
                <th scope="col">Image</th>
                <th scope="col">Cost/hr</th>
                <th scope="col">Cluster</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((p) => (
                <tr key={p.id}>
                  <td>
                    <a href={`#/pods/${p.id}`}>{p.name}</a>
                  </td>
                  <td>
                    <StatusBadge status={p.status} />
                    <WaitReasonLine reason={p.reason} compact />
                  </td>
                  <td>{p.gpu ? `${p.gpu.count} × ${p.gpu.id ?? '?'}` : 'CPU'}</td>
                  <td>
                    <code>{p.image}</code>
                  </td>
                  <td>{money(p.costPerHr)}</td>
                  <td>
                    {p.cluster ? <a href={`#/clusters/${p.cluster.id}`}>rank {p.cluster.rank}</a> : '—'}
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
