import type { CapacityRow, FleetCapacityView, HostState } from '@app/contracts';

const STATES: readonly HostState[] = ['READY', 'CORDONED', 'DRAINING', 'UNHEALTHY', 'GONE'];

function CapacityTable({ rows, label, unit }: { rows: CapacityRow[]; label: string; unit: string }) {
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Data center</th>
          <th scope="col">{unit === 'GPUs' ? 'GPU type' : 'CPU type'}</th>
          <th scope="col">Hosts</th>
          <th scope="col">Total ({unit})</th>
          <th scope="col">Allocated</th>
          <th scope="col">Free</th>
          <th scope="col">Unavailable</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const type = (unit === 'GPUs' ? row.gpuTypeId : row.cpuTypeId) ?? '—';
          return (
            <tr key={`${row.dataCenterId}|${row.gpuTypeId ?? ''}|${row.cpuTypeId ?? ''}`}>
              <th scope="row">{row.dataCenterId}</th>
              <td>{type}</td>
              <td>{row.hosts}</td>
              <td>{row.total}</td>
              <td>{row.allocated}</td>
              <td>{row.free}</td>
              <td>{row.unavailable}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/**
 * The fleet's capacity per data center and type (`GET /v2/fleet/capacity`): total = allocated + free +
 * unavailable, where unavailable is the free capacity of hosts that take no placements (cordoned, draining,
 * unhealthy).
 */
export function FleetCapacity({ capacity }: { capacity: FleetCapacityView }) {
  return (
    <>
      <p className="muted">
        Hosts: {STATES.map((state) => `${capacity.hosts[state] ?? 0} ${state.toLowerCase()}`).join(', ')}.
        Unavailable is free capacity on hosts that take no new pods (cordoned, draining or unhealthy).
      </p>
      {capacity.gpus.length === 0 && capacity.cpus.length === 0 ? (
        <p className="muted">No hosts yet.</p>
      ) : (
        <>
          {capacity.gpus.length > 0 && (
            <CapacityTable rows={capacity.gpus} label="GPU capacity" unit="GPUs" />
          )}
          {capacity.cpus.length > 0 && (
            <CapacityTable rows={capacity.cpus} label="CPU capacity" unit="CPU slots" />
          )}
        </>
      )}
    </>
  );
}
