import { useQuery } from '@tanstack/react-query';
import type { FleetCapacityView } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Loading, Section } from '../../ui';
import { FleetCapacity } from './fleet-capacity';
import { FleetHosts } from './fleet-hosts';
import { HostDetail } from './host-detail';

/**
 * The operators' Fleet page (docs/api.md, "Fleet"; operator keys only): capacity per data center and type, the
 * hosts with their state and its reason; `#/fleet/<hostId>` opens one host with its pods and actions.
 */
export function FleetPage({ route }: { route: string[] }) {
  const capacity = useQuery({
    queryKey: ['fleet-capacity'],
    queryFn: () => api<FleetCapacityView>('/v2/fleet/capacity'),
    refetchInterval: 5000,
    enabled: !route[0],
  });
  if (route[0]) return <HostDetail id={decodeURIComponent(route[0])} />;
  return (
    <>
      <Section title="Capacity">
        <ErrorBox error={capacity.error} />
        {capacity.data ? <FleetCapacity capacity={capacity.data} /> : <Loading what="capacity" />}
      </Section>
      <Section title="Hosts">
        <FleetHosts capacity={capacity.data} />
      </Section>
    </>
  );
}
