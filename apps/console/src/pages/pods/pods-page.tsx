import { PodList } from './pod-list';
import { PodDetail } from './pod-detail';
import { WriteOnly } from '../../ui';
import { CreatePod } from './create-pod';

/** `#/pods`, `#/pods/{id}`, and `#/pods/new/{templateId}`: the create form alone, from a (catalog) template. */
export function PodsPage({ route }: { route: string[] }) {
  if (route[0] === 'new') {
    return (
      <>
        <p>
          <a href="#/pods">← All pods</a>
        </p>
        <WriteOnly>
          <CreatePod templateId={route[1]} />
        </WriteOnly>
      </>
    );
  }
  return route[0] ? <PodDetail id={route[0]} /> : <PodList />;
}
