import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import type { PodStatus, PodV2List, PodV2View } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Loading, Section, StatusBadge, WaitReasonLine, WriteOnly, money } from '../../ui';
import { SelectInput, TextInput } from '../../controls';
import { Age } from './age';
import { CreatePod } from './create-pod';
import { PodActions } from './pod-actions';
import { POD_KINDS, kindOf, newestFirst, type PodKind } from './pod-kinds';
import { MOVING, STATUSES } from './pod-status';

/**
 * The caller's pods, newest first, in tabs by kind (their own pods first; serverless workers and cluster members
 * apart), filtered by status and name. `GET /v2/pods` has no filter, order or page but cluster members in or out,
 * and lists only pods not terminated: the whole list is read and sorted here.
 */
export function PodList() {
  const [kind, setKind] = useState<PodKind>('pods');
  const [status, setStatus] = useState<'' | PodStatus>('');
  const [search, setSearch] = useState('');
  const pods = useQuery({
    queryKey: ['pods'],
    queryFn: () => api<PodV2List>('/v2/pods?includeClusterPods=true'),
    refetchInterval: (q) =>
      q.state.data?.pods.some((p) => MOVING.has(p.status) || p.status !== p.desiredStatus) ? 2000 : 5000,
  });
  const all = pods.data?.pods ?? [];
  const count = (k: PodKind) => (k === 'all' ? all.length : all.filter((p) => kindOf(p) === k).length);
  const shown = all
    .filter(
      (p) =>
        (kind === 'all' || kindOf(p) === kind) &&
        (!status || p.status === status) &&
        (!search || p.name.toLowerCase().includes(search.toLowerCase())),
    )
    .sort(newestFirst);
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
        ) : (
          <Tabs selectedKey={kind} onSelectionChange={(key) => setKind(key as PodKind)}>
            <TabList aria-label="Kinds of pods" className="tabs">
              {POD_KINDS.map((k) => (
                <Tab key={k.id} id={k.id} className="tab">
                  {k.label} ({count(k.id)})
                </Tab>
              ))}
            </TabList>
            {POD_KINDS.map((k) => (
              <TabPanel key={k.id} id={k.id}>
                {shown.length === 0 ? (
                  <p className="muted">No pods{status || search ? ' match' : ''}.</p>
                ) : (
                  <PodTable label={k.label} pods={shown} partOf={k.id !== 'pods'} />
                )}
              </TabPanel>
            ))}
          </Tabs>
        )}
      </Section>
    </>
  );
}

/** The pods of one tab; `partOf` adds the column of the cluster or endpoint (your own pods belong to neither). */
function PodTable({ label, pods, partOf }: { label: string; pods: PodV2View[]; partOf: boolean }) {
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Status</th>
          <th scope="col">Age</th>
          <th scope="col">GPU</th>
          <th scope="col">Image</th>
          <th scope="col">Cost/hr</th>
          {partOf && <th scope="col">Part of</th>}
          <WriteOnly>
            <th scope="col">Actions</th>
          </WriteOnly>
        </tr>
      </thead>
      <tbody>
        {pods.map((p) => (
          <tr key={p.id}>
            <th scope="row">
              <a href={`#/pods/${p.id}`}>{p.name}</a>
            </th>
            <td>
              <StatusBadge status={p.status} />
              <WaitReasonLine reason={p.reason} compact />
            </td>
            <td>
              <Age iso={p.createdAt} />
            </td>
            <td>{p.gpu ? `${p.gpu.count} × ${p.gpu.id ?? '?'}` : 'CPU'}</td>
            <td>
              <code>{p.image}</code>
            </td>
            <td>{money(p.costPerHr)}</td>
            {partOf && (
              <td>
                <PartOf pod={p} />
              </td>
            )}
            <WriteOnly>
              <td>
                <PodActions pod={p} inRow />
              </td>
            </WriteOnly>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The cluster (with the member's rank) or the serverless endpoint a pod belongs to. */
export function PartOf({ pod }: { pod: PodV2View }) {
  if (pod.cluster) {
    return <a href={`#/clusters/${pod.cluster.id}`}>cluster, rank {pod.cluster.rank ?? '?'}</a>;
  }
  if (pod.endpointId) return <a href={`#/endpoints/${pod.endpointId}`}>endpoint {pod.endpointId}</a>;
  return <>—</>;
}
