import { useState, type FormEvent } from 'react';
import { Button } from 'react-aria-components';
import { useQuery } from '@tanstack/react-query';
import type { ClusterList, ClusterType, ClusterView, PodV2List } from '@app/contracts';
import { api } from '../api';
import {
  EnvField,
  ErrorBox,
  Field,
  PortsField,
  Loading,
  Section,
  StatusBadge,
  WriteOnly,
  useAction,
  when,
} from '../ui';
import { useGpuTypes } from './pods/gpu-types';
import { parseEnv, parseList } from './templates';
import { ConfirmButton, SelectInput, TextInput } from '../controls';

const TYPES: ClusterType[] = ['TRAINING', 'SLURM', 'RAY', 'APPLICATION'];

export function ClustersPage({ route }: { route: string[] }) {
  return route[0] ? <ClusterDetail id={route[0]} /> : <ClusterList />;
}

function summary(c: ClusterView): string {
  return Object.entries(c.pods.byStatus)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
}

function ClusterList() {
  const clusters = useQuery({
    queryKey: ['clusters'],
    queryFn: async () => (await api<ClusterList>('/v2/clusters')).clusters,
    refetchInterval: 5000,
  });
  return (
    <>
      <WriteOnly>
        <CreateCluster />
      </WriteOnly>
      <Section title="Clusters">
        <ErrorBox error={clusters.error} />
        {!clusters.data ? (
          <Loading what="clusters" />
        ) : clusters.data.length === 0 ? (
          <p className="muted">No clusters yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Compute</th>
                <th scope="col">Members</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {clusters.data.map((c) => (
                <tr key={c.id}>
                  <td>
                    <a href={`#/clusters/${c.id}`}>{c.name}</a>
                  </td>
                  <td>{c.type}</td>
                  <td>
                    {c.compute.podCount} × {c.compute.gpuCountPerPod} {c.compute.gpuTypeId}
                  </td>
                  <td>{summary(c)}</td>
                  <td>{when(c.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}

function CreateCluster() {
  const gpus = useGpuTypes();
  const [name, setName] = useState('');
  const [type, setType] = useState<ClusterType>('TRAINING');
  const [gpuTypeId, setGpuTypeId] = useState('');
  const [perPod, setPerPod] = useState(1);
  const [podCount, setPodCount] = useState(2);
  const [image, setImage] = useState('');
  const [dataCenters, setDataCenters] = useState('');
  const [disk, setDisk] = useState(20);
  const [ports, setPorts] = useState('');
  const [env, setEnv] = useState('');
  const create = useAction(
    () =>
      api<ClusterView>('/v2/clusters', {
        method: 'POST',
        body: {
          name,
          type,
          compute: { gpuTypeId, gpuCountPerPod: perPod, podCount },
          ...(image ? { image } : {}),
          ...(dataCenters.trim() ? { dataCenterIds: parseList(dataCenters) } : {}),
          disk,
          ...(ports.trim() ? { ports: parseList(ports) } : {}),
          ...(env.trim() ? { env: parseEnv(env) } : {}),
        },
      }),
    [['clusters']],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined, { onSuccess: (c) => (window.location.hash = `#/clusters/${c.id}`) });
  };
  return (
    <Section title="New cluster">
      <form onSubmit={submit} className="grid-form">
        <TextInput label="Name" value={name} onChange={setName} />
        <SelectInput
          label="Type"
          value={type}
          onChange={setType}
          options={TYPES.map((t) => ({ id: t, label: t }))}
        />
        <Field label="GPU type">
          {(id) => (
            <select id={id} value={gpuTypeId} onChange={(e) => setGpuTypeId(e.target.value)}>
              <option value="">Choose…</option>
              {gpus.data?.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.displayName} — at most {g.availability.maxFreeOnOneHost} free on one host
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="GPUs per pod">
          {(id) => (
            <input id={id} type="number" value={perPod} onChange={(e) => setPerPod(Number(e.target.value))} />
          )}
        </Field>
        <Field label="Pods" hint="2 to 250">
          {(id, hint) => (
            <input
              id={id}
              aria-describedby={hint}
              type="number"
              value={podCount}
              onChange={(e) => setPodCount(Number(e.target.value))}
            />
          )}
        </Field>
        <TextInput label="Image" hint="Empty: the platform's default" value={image} onChange={setImage} />
        <TextInput
          label="Data centers"
          hint="Comma-separated ids; empty: any"
          value={dataCenters}
          onChange={setDataCenters}
        />
        <Field label="Container disk (GB)">
          {(id) => (
            <input id={id} type="number" value={disk} onChange={(e) => setDisk(Number(e.target.value))} />
          )}
        </Field>
        <PortsField value={ports} onChange={setPorts} />
        <EnvField value={env} onChange={setEnv} />
        <ErrorBox error={create.error} />
        <Button type="submit" isDisabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create cluster'}
        </Button>
      </form>
    </Section>
  );
}

function ClusterDetail({ id }: { id: string }) {
  const cluster = useQuery({
    queryKey: ['cluster', id],
    queryFn: () => api<ClusterView>(`/v2/clusters/${id}`),
    refetchInterval: 3000,
  });
  const members = useQuery({
    queryKey: ['cluster', id, 'pods'],
    queryFn: async () => (await api<PodV2List>(`/v2/clusters/${id}/pods`)).pods,
    refetchInterval: (q) => (q.state.data?.every((m) => m.status === 'RUNNING') ? 5000 : 1500),
  });
  const remove = useAction(() => api<void>(`/v2/clusters/${id}`, { method: 'DELETE' }), [['clusters']]);
  if (cluster.error) return <ErrorBox error={cluster.error} />;
  if (!cluster.data) return <Loading what="the cluster" />;
  const c = cluster.data;
  return (
    <>
      <p>
        <a href="#/clusters">← All clusters</a>
      </p>
      <Section
        title={c.name}
        actions={
          <WriteOnly>
            <ConfirmButton
              label="Delete cluster"
              title={`Delete cluster ${c.name}?`}
              question="Its pods are terminated and their container disks are lost."
              pending={remove.isPending}
              pendingLabel="Deleting…"
              onConfirm={() =>
                remove.mutate(undefined, { onSuccess: () => (window.location.hash = '#/clusters') })
              }
            />
          </WriteOnly>
        }
      >
        <ErrorBox error={remove.error} />
        <dl className="facts">
          <dt>Id</dt>
          <dd>
            <code>{c.id}</code>
          </dd>
          <dt>Type</dt>
          <dd>{c.type}</dd>
          <dt>Compute</dt>
          <dd>
            {c.compute.podCount} pods × {c.compute.gpuCountPerPod} {c.compute.gpuTypeId}
          </dd>
          <dt>Data center</dt>
          <dd>{c.dataCenterId ?? '—'}</dd>
          <dt>Overlay network</dt>
          <dd>
            {c.network
              ? `${c.network.cidr}${c.network.vxlanId !== undefined ? `, VXLAN ${c.network.vxlanId}` : ''}${
                  c.network.vxlanPort !== undefined ? ` (UDP ${c.network.vxlanPort})` : ''
                }`
              : '—'}
          </dd>
          <dt>Primary</dt>
          <dd>{c.primary ? <code>{c.primary.sshEndpoint ?? c.primary.podId}</code> : '—'}</dd>
        </dl>
      </Section>
      <Section title="Members">
        <ErrorBox error={members.error} />
        {!members.data ? (
          <Loading what="members" />
        ) : (
          <table aria-label="Members">
            <thead>
              <tr>
                <th scope="col">Rank</th>
                <th scope="col">Role</th>
                <th scope="col">Pod</th>
                <th scope="col">Overlay IP</th>
                <th scope="col">Status</th>
                <th scope="col">Machine</th>
              </tr>
            </thead>
            <tbody>
              {[...members.data]
                .sort((a, b) => (a.cluster?.rank ?? 0) - (b.cluster?.rank ?? 0))
                .map((m) => (
                  <tr key={m.id}>
                    <td>{m.cluster?.rank}</td>
                    <td>{m.cluster?.role}</td>
                    <td>
                      <a href={`#/pods/${m.id}`}>{m.name}</a>
                    </td>
                    <td>
                      <code>{m.cluster?.ip}</code>
                    </td>
                    <td>
                      <StatusBadge status={m.status} />
                    </td>
                    <td>{m.machineId}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}
