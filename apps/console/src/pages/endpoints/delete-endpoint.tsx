import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { EndpointV2List, EndpointV2View, WorkerList, WorkerView } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox } from '../../ui';
import { ConfirmButton } from '../../controls';

const POLL_MS = 1000;

type Step = { at: 'idle' } | { at: 'scaling' } | { at: 'waiting'; workers: number } | { at: 'deleting' };

const PROGRESS: Record<Step['at'], (workers: number) => string> = {
  idle: () => '',
  scaling: () => 'Scaling to zero (workers min and max 0)…',
  waiting: (n) => `Waiting for ${n} worker${n === 1 ? '' : 's'} to stop…`,
  deleting: () => 'Deleting…',
};

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * A worker whose pod still runs. The broker lists a worker until it is declared lost, after its pod is gone
 * (podId null then); a stopped FlashBoot worker (EXITED) runs nothing; a worker run elsewhere with the
 * endpoint's key has no pod here and no scaling stops it.
 */
const runsAPod = (w: WorkerView) => w.podId !== null && w.podStatus !== 'EXITED';

/**
 * Deletes an endpoint. The API deletes only an endpoint scaled to zero (workers min and max 0): one that may run
 * workers is offered "scale to zero and delete", which sets both to 0 through the update route, waits until its
 * workers list is empty (the autoscaler stops them; the count is shown), then deletes. Leaving the page stops the
 * wait, with the endpoint scaled to zero; a refusal at any step shows here.
 */
export function DeleteEndpoint({ endpoint }: { endpoint: EndpointV2View }) {
  const client = useQueryClient();
  const [step, setStep] = useState<Step>({ at: 'idle' });
  const [error, setError] = useState<unknown>(null);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);
  const scaled = endpoint.workers.min === 0 && endpoint.workers.max === 0;

  const run = async () => {
    const controller = new AbortController();
    abort.current = controller;
    const { signal } = controller;
    setError(null);
    try {
      if (!scaled) {
        setStep({ at: 'scaling' });
        await api<EndpointV2View>(`/v2/serverless/${endpoint.id}`, {
          method: 'PATCH',
          body: { workers: { min: 0, max: 0 } },
        });
        await client.invalidateQueries({ queryKey: ['endpoint', endpoint.id] });
        for (;;) {
          const list = await api<WorkerList>(`/v2/serverless/${endpoint.id}/workers`, { signal });
          const live = list.workers.filter(runsAPod).length;
          if (live === 0) break;
          setStep({ at: 'waiting', workers: live });
          await sleep(POLL_MS, signal);
          if (signal.aborted) return;
        }
      }
      setStep({ at: 'deleting' });
      await api<void>(`/v2/serverless/${endpoint.id}`, { method: 'DELETE' });
      // Out of the cached list at once: the list page would show it until its refetch answered.
      client.setQueryData<EndpointV2List>(['endpoints'], (list) =>
        list ? { endpoints: list.endpoints.filter((e) => e.id !== endpoint.id) } : list,
      );
      await client.invalidateQueries({ queryKey: ['endpoints'] });
      window.location.hash = '#/endpoints';
    } catch (e) {
      if (!signal.aborted) {
        setError(e);
        setStep({ at: 'idle' });
      }
    }
  };

  const busy = step.at !== 'idle';
  return (
    <>
      <ConfirmButton
        label={scaled ? 'Delete endpoint' : 'Scale to zero and delete'}
        title={`Delete endpoint ${endpoint.name}?`}
        question={
          scaled
            ? 'Its workers stop, its queued jobs are not run, and its workers’ key is revoked.'
            : `It may run up to ${endpoint.workers.max} worker(s): it is scaled to zero first (workers min and ` +
              'max 0), then deleted once its workers have stopped. Its queued jobs are not run, and its ' +
              'workers’ key is revoked.'
        }
        confirmLabel={scaled ? 'Delete endpoint' : 'Scale to zero and delete'}
        pending={busy}
        pendingLabel="Deleting…"
        onConfirm={() => void run()}
      />
      {busy && (
        <p role="status" className="wide">
          {PROGRESS[step.at](step.at === 'waiting' ? step.workers : 0)}
        </p>
      )}
      <ErrorBox error={error} />
    </>
  );
}
