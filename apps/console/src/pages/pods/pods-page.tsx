import { PodList } from './pod-list';
import { PodDetail } from './pod-detail';

export function PodsPage({ route }: { route: string[] }) {
  return route[0] ? <PodDetail id={route[0]} /> : <PodList />;
}
