import { Button } from 'react-aria-components';
import type { PodV2View, PublishedPodAction } from '@app/contracts';
import { api } from '../../api';
import { ConfirmButton } from '../../controls';
import { ErrorBox, useAction } from '../../ui';

const ACTION_LABELS: Record<PublishedPodAction, string> = {
  start: 'Start',
  stop: 'Stop',
  // The platform's restart recreates the container on a wiped container disk: RunPod's "reset".
  restart: 'Restart (reset)',
  terminate: 'Terminate',
};

/**
 * The actions a pod's status allows now (its published `actions`: a cluster member is never terminated alone),
 * terminate behind a confirmation, and the API's refusal shown right under them. On the pod's page they are "Pod
 * actions"; in a row of the list (`inRow`) each button also names its pod, so a screen reader's list of buttons
 * tells the rows apart.
 */
export function PodActions({ pod, inRow = false }: { pod: PodV2View; inRow?: boolean }) {
  const act = useAction(
    (action: PublishedPodAction) =>
      api<PodV2View | undefined>(`/v2/pods/${pod.id}/action`, { method: 'POST', body: { action } }),
    [['pod', pod.id], ['pods']],
  );
  const nameOf = (action: PublishedPodAction) => (inRow ? `${ACTION_LABELS[action]} ${pod.name}` : undefined);
  const pending = (action: PublishedPodAction) => act.isPending && act.variables === action;
  return (
    <>
      <div className="row" role="group" aria-label={inRow ? `Actions of ${pod.name}` : 'Pod actions'}>
        {pod.actions
          .filter((a) => !(pod.cluster && a === 'terminate'))
          .map((action) =>
            action === 'terminate' ? (
              <ConfirmButton
                key={action}
                small={inRow}
                label={ACTION_LABELS[action]}
                accessibleLabel={nameOf(action)}
                title={`Terminate pod ${pod.name}?`}
                question="The pod and its container disk are gone for good."
                pending={pending(action)}
                onConfirm={() => act.mutate(action)}
              />
            ) : (
              <Button
                key={action}
                className={inRow ? 'secondary small' : undefined}
                aria-label={nameOf(action)}
                isDisabled={act.isPending}
                onPress={() => act.mutate(action)}
              >
                {pending(action) ? `${ACTION_LABELS[action]}…` : ACTION_LABELS[action]}
              </Button>
            ),
          )}
      </div>
      <ErrorBox error={act.error} />
    </>
  );
}
