import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import type { FleetCapacityView, HostListView, HostState } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Field, Loading } from '../../ui';
import { HostStateCell, hostUse } from './host-state';

const PAGE = 100;
const STATES: readonly HostState[] = ['READY', 'CORDONED', 'DRAINING', 'UNHEALTHY', 'GONE'];
const ANY = '';

interface Filters {
  dataCenterId: string;
  gpuTypeId: string;
  state: string;
}

function FilterSelect({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: string[];
}) {
  return (
    <Field label={label}>
      {(id) => (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value={ANY}>Any</option>
          {options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/**
 * The hosts (`GET /v2/fleet/hosts`), filtered by data center, GPU type and state, a page at a time (the pages
 * before kept as a stack of `after` cursors); each row opens the host.
 */
export function FleetHosts({ capacity }: { capacity?: FleetCapacityView }) {
  const [filters, setFilters] = useState<Filters>({ dataCenterId: ANY, gpuTypeId: ANY, state: ANY });
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors.at(-1);
  const query = new URLSearchParams({
    ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== ANY)),
    ...(after ? { after } : {}),
    limit: String(PAGE),
  });
  const hosts = useQuery({
    queryKey: ['fleet-hosts', query.toString()],
    queryFn: () => api<HostListView>(`/v2/fleet/hosts?${query.toString()}`),
    refetchInterval: 5000,
  });
  const rows = [...(capacity?.gpus ?? []), ...(capacity?.cpus ?? [])];
  const dataCenters = [...new Set(rows.map((r) => r.dataCenterId))].sort();
  const gpuTypes = [
    ...new Set(capacity?.gpus.flatMap((r) => (r.gpuTypeId ? [r.gpuTypeId] : [])) ?? []),
  ].sort();
  const set = (name: keyof Filters) => (value: string) => {
    setFilters((f) => ({ ...f, [name]: value }));
    setCursors([]);
  };
  return (
    <>
      <div className="row filters" role="group" aria-label="Filter hosts">
        <FilterSelect
          label="Data center"
          value={filters.dataCenterId}
          onChange={set('dataCenterId')}
          options={dataCenters}
        />
        <FilterSelect
          label="GPU type"
          value={filters.gpuTypeId}
          onChange={set('gpuTypeId')}
          options={gpuTypes}
        />
        <FilterSelect label="State" value={filters.state} onChange={set('state')} options={[...STATES]} />
      </div>
      <ErrorBox error={hosts.error} />
      {!hosts.data ? (
        <Loading what="hosts" />
      ) : hosts.data.hosts.length === 0 ? (
        <p className="muted">No hosts match.</p>
      ) : (
        <table aria-label="Hosts">
          <thead>
            <tr>
              <th scope="col">Host</th>
              <th scope="col">Data center</th>
              <th scope="col">In use</th>
              <th scope="col">Pods</th>
              <th scope="col">State</th>
              <th scope="col">Source</th>
            </tr>
          </thead>
          <tbody>
            {hosts.data.hosts.map((host) => (
              <tr key={host.id}>
                <th scope="row">
                  <a href={`#/fleet/${encodeURIComponent(host.id)}`}>{host.id}</a>
                </th>
                <td>{host.dataCenterId}</td>
                <td>{hostUse(host)}</td>
                <td>{host.pods}</td>
                <td>
                  <HostStateCell host={host} />
                </td>
                <td>{host.source}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(cursors.length > 0 || hosts.data?.next) && (
        <div className="row">
          <Button className="secondary" isDisabled={cursors.length === 0} onPress={() => setCursors([])}>
            First page
          </Button>
          <Button
            className="secondary"
            isDisabled={!hosts.data?.next}
            onPress={() => hosts.data?.next && setCursors((c) => [...c, hosts.data.next!])}
          >
            Next page
          </Button>
        </div>
      )}
    </>
  );
}
