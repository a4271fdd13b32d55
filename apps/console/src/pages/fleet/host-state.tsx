import type { HostView } from '@app/contracts';
import { StatusBadge } from '../../ui';

/** Why the host is in its shown state: the health report when unhealthy, else the cordon's, drain's or removal's. */
export function hostReason(host: HostView): string | null {
  if (host.state === 'UNHEALTHY') {
    const gpu = host.health.gpuIndex !== null ? ` (GPU ${host.health.gpuIndex})` : '';
    return `${host.health.code ?? 'UNHEALTHY'}${gpu}: ${host.health.reason ?? 'no reason given'}`;
  }
  if (host.state === 'READY') return null;
  const by = host.scheduling.by === 'operator' ? 'an operator' : host.scheduling.by;
  return `by ${by}${host.scheduling.reason ? `: ${host.scheduling.reason}` : ''}`;
}

/** The shown state as a badge, its reason beside it. */
export function HostStateCell({ host }: { host: HostView }) {
  const reason = hostReason(host);
  return (
    <>
      <StatusBadge status={host.state} />
      {reason && <span className="muted"> {reason}</span>}
    </>
  );
}

/** GPUs in use of the host's GPUs, or CPU slots for a CPU host. */
export function hostUse(host: HostView): string {
  return host.gpuTypeId
    ? `${host.allocatedGpus} / ${host.gpuCount} × ${host.gpuTypeId}`
    : `${host.allocatedCpuSlots} / ${host.cpuSlots} CPU slots`;
}
