import { useState, type FormEvent } from 'react';
import { Button } from 'react-aria-components';
import { useQuery } from '@tanstack/react-query';
import type { EndpointV2View, GpuTier, NetworkVolumeList, TemplateList } from '@app/contracts';
import { api } from '../../api';
import { EnvField, ErrorBox, Field, Section, useAction } from '../../ui';
import { parseEnv, parseList } from '../templates';
import { POOLS } from './gpu-pools';
import { TextInput } from '../../controls';
import { DeleteEndpoint } from './delete-endpoint';

type ScalerType = EndpointV2View['scaling']['type'];

/** A number input as the API sees it: no browser range check, so the API's own message shows for a bad value. */
function NumberField({
  label,
  hint,
  value,
  onChange,
}: {
  label: string;
  hint?: string;
  value: number;
  onChange: (value: number) => void;
}) {
  return (
    <Field label={label} hint={hint}>
      {(id, describedBy) => (
        <input
          id={id}
          type="number"
          aria-describedby={describedBy}
          value={Number.isNaN(value) ? '' : value}
          onChange={(e) => onChange(e.target.valueAsNumber)}
        />
      )}
    </Field>
  );
}

/**
 * Every setting `PATCH /v2/serverless/{id}` accepts but the routing type (a queue endpoint stays one): the form
 * sends them all, and shows the API's problem (with its per-field errors) when it refuses them.
 */
export function EditEndpoint({ endpoint }: { endpoint: EndpointV2View }) {
  const templates = useQuery({ queryKey: ['templates'], queryFn: () => api<TemplateList>('/v2/templates') });
  const volumes = useQuery({
    queryKey: ['network-volumes'],
    queryFn: () => api<NetworkVolumeList>('/v2/network-volumes'),
  });
  const [name, setName] = useState(endpoint.name);
  const [templateId, setTemplateId] = useState(endpoint.templateId);
  const [pools, setPools] = useState<string[]>(endpoint.gpu.pools);
  const [count, setCount] = useState(endpoint.gpu.count);
  const [cuda, setCuda] = useState(endpoint.gpu.allowedCudaVersions.join(', '));
  const [min, setMin] = useState(endpoint.workers.min);
  const [max, setMax] = useState(endpoint.workers.max);
  const [idle, setIdle] = useState(endpoint.workers.idleTimeout);
  const [scaler, setScaler] = useState<ScalerType>(endpoint.scaling.type);
  const [scalerValue, setScalerValue] = useState(
    endpoint.scaling.type === 'QUEUE_DELAY' ? endpoint.scaling.queueDelay : endpoint.scaling.requestCount,
  );
  const [flashboot, setFlashboot] = useState(endpoint.flashboot === 'FLASHBOOT');
  const [volume, setVolume] = useState(endpoint.networkVolumes[0] ?? '');
  const [env, setEnv] = useState(
    Object.entries(endpoint.env)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
  );
  const save = useAction(
    () =>
      api<EndpointV2View>(`/v2/serverless/${endpoint.id}`, {
        method: 'PATCH',
        body: {
          name,
          templateId,
          gpu: { pools, count, allowedCudaVersions: parseList(cuda) },
          workers: { min, max, idleTimeout: idle },
          scaling:
            scaler === 'QUEUE_DELAY'
              ? { type: scaler, queueDelay: scalerValue }
              : { type: scaler, requestCount: scalerValue },
          flashboot: flashboot ? 'FLASHBOOT' : 'OFF',
          networkVolumes: volume ? [volume] : [],
          env: parseEnv(env),
        },
      }),
    [['endpoint', endpoint.id], ['endpoints']],
  );
  const serverless = templates.data?.templates.filter((t) => t.serverless) ?? [];
  const togglePool = (pool: GpuTier, on: boolean) =>
    setPools((list) => (on ? [...list.filter((p) => p !== pool), pool] : list.filter((p) => p !== pool)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(undefined);
  };
  return (
    <Section title="Settings">
      {/* noValidate: the API checks the values, and its message names the field. */}
      <form className="grid-form" noValidate onSubmit={submit}>
        <TextInput label="Name" value={name} onChange={setName} />
        <Field label="Template">
          {(id) => (
            <select id={id} value={templateId} onChange={(e) => setTemplateId(e.target.value)}>
              {!serverless.some((t) => t.id === templateId) && (
                <option value={templateId}>{templateId}</option>
              )}
              {serverless.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name} ({t.image})
                </option>
              ))}
            </select>
          )}
        </Field>
        <fieldset className="wide">
          <legend>GPU pools (in the order of preference checked)</legend>
          {POOLS.map((pool) => (
            <label key={pool}>
              <input
                type="checkbox"
                checked={pools.includes(pool)}
                onChange={(e) => togglePool(pool, e.target.checked)}
              />{' '}
              {pool}
              {pools.includes(pool) && pools.length > 1 && (
                <span className="muted"> ({pools.indexOf(pool) + 1})</span>
              )}
            </label>
          ))}
        </fieldset>
        <NumberField label="GPUs per worker" value={count} onChange={setCount} />
        <TextInput
          label="Allowed CUDA versions"
          hint="Comma-separated, e.g. 12.1, 12.4; empty means any"
          value={cuda}
          onChange={setCuda}
        />
        <NumberField label="Workers min" value={min} onChange={setMin} />
        <NumberField label="Workers max" value={max} onChange={setMax} />
        <NumberField label="Idle timeout (s)" value={idle} onChange={setIdle} />
        <Field label="Scaler">
          {(id) => (
            <select id={id} value={scaler} onChange={(e) => setScaler(e.target.value as ScalerType)}>
              <option value="QUEUE_DELAY">Queue delay</option>
              <option value="REQUEST_COUNT">Request count</option>
            </select>
          )}
        </Field>
        <NumberField
          label="Scaler value"
          hint={
            scaler === 'QUEUE_DELAY'
              ? 'Seconds the oldest job may wait before another worker starts'
              : 'Requests per worker'
          }
          value={scalerValue}
          onChange={setScalerValue}
        />
        <Field
          label="Network volume"
          hint="Mounted in every worker (at /runpod-volume unless the operator changed it)"
        >
          {(id, hint) => (
            <select
              id={id}
              aria-describedby={hint}
              value={volume}
              onChange={(e) => setVolume(e.target.value)}
            >
              <option value="">None</option>
              {!volumes.data?.networkVolumes.some((v) => v.id === volume) && volume && (
                <option value={volume}>{volume}</option>
              )}
              {volumes.data?.networkVolumes.map((v) => (
                <option key={v.id} value={v.id}>
                  {v.name} ({v.size} GB, {v.dataCenterId})
                </option>
              ))}
            </select>
          )}
        </Field>
        <EnvField value={env} onChange={setEnv} hint="One KEY=value per line, for every worker" />
        <label className="wide">
          <input type="checkbox" checked={flashboot} onChange={(e) => setFlashboot(e.target.checked)} />{' '}
          FlashBoot
        </label>
        <ErrorBox error={save.error} />
        <div className="row wide">
          <Button type="submit" isDisabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save settings'}
          </Button>
          <DeleteEndpoint endpoint={endpoint} />
        </div>
        {save.isSuccess && <p role="status">Saved.</p>}
      </form>
    </Section>
  );
}
