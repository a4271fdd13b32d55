import { useState } from 'react';
import type { EndpointV2View } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Field, useAction } from '../../ui';

export function EditEndpoint({ endpoint }: { endpoint: EndpointV2View }) {
  const [min, setMin] = useState(endpoint.workers.min);
  const [max, setMax] = useState(endpoint.workers.max);
  const [idle, setIdle] = useState(endpoint.workers.idleTimeout);
  const save = useAction(
    () =>
      api<EndpointV2View>(`/v2/serverless/${endpoint.id}`, {
        method: 'PATCH',
        body: { workers: { min, max, idleTimeout: idle } },
      }),
    [['endpoint', endpoint.id], ['endpoints']],
  );
  const remove = useAction(
    () => api<void>(`/v2/serverless/${endpoint.id}`, { method: 'DELETE' }),
    [['endpoints']],
  );
  return (
    <form
      className="grid-form"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(undefined);
      }}
    >
      <Field label="Workers min">
        {(id) => (
          <input id={id} type="number" min={0} value={min} onChange={(e) => setMin(Number(e.target.value))} />
        )}
      </Field>
      <Field label="Workers max">
        {(id) => (
          <input id={id} type="number" min={0} value={max} onChange={(e) => setMax(Number(e.target.value))} />
        )}
      </Field>
      <Field label="Idle timeout (s)">
        {(id) => (
          <input
            id={id}
            type="number"
            min={1}
            value={idle}
            onChange={(e) => setIdle(Number(e.target.value))}
          />
        )}
      </Field>
      <ErrorBox error={save.error ?? remove.error} />
      <div className="row">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save workers'}
        </button>
        <button
          type="button"
          className="danger"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete endpoint ${endpoint.name}?`))
              remove.mutate(undefined, { onSuccess: () => (window.location.hash = '#/endpoints') });
          }}
        >
          Delete endpoint
        </button>
      </div>
      {save.isSuccess && <p role="status">Saved.</p>}
    </form>
  );
}
