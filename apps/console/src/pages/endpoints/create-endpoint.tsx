import { useState, type FormEvent } from 'react';
import { Button } from 'react-aria-components';
import { useQuery } from '@tanstack/react-query';
import type { EndpointV2Type, EndpointV2View, GpuTier, TemplateList } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Field, Section, useAction } from '../../ui';
import { POOLS } from './gpu-pools';
import { SelectInput, TextInput } from '../../controls';

const TYPES: readonly { id: EndpointV2Type; label: string }[] = [
  { id: 'QUEUE', label: 'Queue (jobs)' },
  { id: 'LOAD_BALANCER', label: 'Load balancing (HTTP)' },
];

export function CreateEndpoint() {
  const templates = useQuery({ queryKey: ['templates'], queryFn: () => api<TemplateList>('/v2/templates') });
  const [name, setName] = useState('');
  const [type, setType] = useState<EndpointV2Type>('QUEUE');
  const [templateId, setTemplateId] = useState('');
  const [pool, setPool] = useState<GpuTier>('AMPERE_16');
  const [min, setMin] = useState(0);
  const [max, setMax] = useState(1);
  const [idle, setIdle] = useState(5);
  const create = useAction(
    () =>
      api<EndpointV2View>('/v2/serverless', {
        method: 'POST',
        body: {
          name,
          type,
          templateId,
          gpu: { pools: [pool], count: 1 },
          workers: { min, max, idleTimeout: idle },
          // A load-balancing endpoint scales on requests in flight per worker (ADR 26), a queue on queue delay.
          scaling:
            type === 'QUEUE'
              ? { type: 'QUEUE_DELAY', queueDelay: 1 }
              : { type: 'REQUEST_COUNT', requestCount: 4 },
        },
      }),
    [['endpoints']],
  );
  const serverless = templates.data?.templates.filter((t) => t.serverless) ?? [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined, { onSuccess: (e) => (window.location.hash = `#/endpoints/${e.id}`) });
  };
  return (
    <Section title="New endpoint">
      <form onSubmit={submit} className="grid-form">
        <TextInput label="Name" value={name} onChange={setName} />
        <SelectInput
          label="Type"
          hint={
            type === 'QUEUE'
              ? 'Jobs through /v2/{id}/run, taken by workers'
              : 'Your HTTP server on the workers, at /lb/{id}/…'
          }
          value={type}
          onChange={setType}
          options={TYPES}
        />
        <Field label="Template" hint="A serverless template (Templates page)">
          {(id, hint) => (
            <select
              id={id}
              aria-describedby={hint}
              value={templateId}
              onChange={(e) => setTemplateId(e.target.value)}
            >
              <option value="">Choose…</option>
              {serverless.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name} ({t.image})
                </option>
              ))}
            </select>
          )}
        </Field>
        <SelectInput
          label="GPU pool"
          value={pool}
          onChange={setPool}
          options={POOLS.map((p) => ({ id: p, label: p }))}
        />
        <Field label="Workers min">
          {(id) => (
            <input
              id={id}
              type="number"
              min={0}
              value={min}
              onChange={(e) => setMin(Number(e.target.value))}
            />
          )}
        </Field>
        <Field label="Workers max">
          {(id) => (
            <input
              id={id}
              type="number"
              min={0}
              value={max}
              onChange={(e) => setMax(Number(e.target.value))}
            />
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
        <ErrorBox error={create.error} />
        <Button type="submit" isDisabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create endpoint'}
        </Button>
      </form>
    </Section>
  );
}
