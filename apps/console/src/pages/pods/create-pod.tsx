import { useState, type FormEvent } from 'react';
import { Button } from 'react-aria-components';
import { useQuery } from '@tanstack/react-query';
import type { PodV2View, TemplateList, TemplateV2View } from '@app/contracts';
import { api } from '../../api';
import { EnvField, ErrorBox, Field, PortsField, Section, money, useAction } from '../../ui';
import { parseEnv, parseList } from '../templates';
import { useGpuTypes } from './gpu-types';
import { TextInput } from '../../controls';

/** The new pod form; from the catalog's "Deploy a pod", `templateId` comes chosen. */
export function CreatePod({ templateId: initialTemplate = '' }: { templateId?: string }) {
  const templates = useQuery({ queryKey: ['templates'], queryFn: () => api<TemplateList>('/v2/templates') });
  const catalog = useQuery({
    queryKey: ['catalog-templates', 'official'],
    queryFn: () => api<TemplateList>('/v2/catalog/templates?source=official'),
  });
  // A template of another slice of the catalog (or one not listed yet) is read by its id.
  const chosen = useQuery({
    queryKey: ['template', initialTemplate],
    queryFn: () => api<TemplateV2View>(`/v2/templates/${initialTemplate}`),
    enabled: !!initialTemplate,
  });
  const gpus = useGpuTypes();
  const [name, setName] = useState('');
  const [source, setSource] = useState<'image' | 'template'>(initialTemplate ? 'template' : 'image');
  const [image, setImage] = useState('');
  const [templateId, setTemplateId] = useState(initialTemplate);
  const yours = templates.data?.templates.filter((t) => !t.serverless) ?? [];
  const known = new Set([...yours, ...(catalog.data?.templates ?? [])].map((t) => t.id));
  const published = [
    ...(catalog.data?.templates ?? []),
    ...(chosen.data && !known.has(chosen.data.id) ? [chosen.data] : []),
  ].filter((t) => !t.serverless);
  const [gpu, setGpu] = useState('');
  const [count, setCount] = useState(1);
  const [ports, setPorts] = useState('8888/http, 22/tcp');
  const [env, setEnv] = useState('');
  const create = useAction(
    () =>
      api<PodV2View>('/v2/pods', {
        method: 'POST',
        body: {
          name,
          ...(source === 'image' ? { image } : { templateId }),
          gpu: { id: gpu, count },
          ...(source === 'image' ? { ports: parseList(ports), env: parseEnv(env) } : {}),
        },
      }),
    [['pods']],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined, { onSuccess: (pod) => (window.location.hash = `#/pods/${pod.id}`) });
  };
  return (
    <Section title="New pod">
      <form onSubmit={submit} className="grid-form">
        <TextInput label="Name" value={name} onChange={setName} />
        <fieldset>
          <legend>Start from</legend>
          <label>
            <input
              type="radio"
              name="pod-source"
              checked={source === 'image'}
              onChange={() => setSource('image')}
            />{' '}
            an image
          </label>
          <label>
            <input
              type="radio"
              name="pod-source"
              checked={source === 'template'}
              onChange={() => setSource('template')}
            />{' '}
            a template
          </label>
        </fieldset>
        {source === 'image' ? (
          <>
            <TextInput label="Image" placeholder="repo/image:tag" value={image} onChange={setImage} />
            <PortsField value={ports} onChange={setPorts} />
            <EnvField value={env} onChange={setEnv} />
          </>
        ) : (
          <Field label="Template">
            {(id) => (
              <select id={id} value={templateId} onChange={(e) => setTemplateId(e.target.value)}>
                <option value="">Choose…</option>
                <optgroup label="Yours">
                  {yours.map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.name} ({t.image})
                    </option>
                  ))}
                </optgroup>
                <optgroup label="Catalog">
                  {published.map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.name} ({t.image})
                    </option>
                  ))}
                </optgroup>
              </select>
            )}
          </Field>
        )}
        <Field label="GPU type">
          {(id) => (
            <select id={id} value={gpu} onChange={(e) => setGpu(e.target.value)}>
              <option value="">Choose…</option>
              {gpus.data?.map((g) => (
                <option key={g.id} value={g.id} disabled={g.availability.freeGpus === 0}>
                  {g.displayName} — {g.availability.freeGpus} free, {money(g.pricePerHr)}/hr
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="GPU count">
          {(id) => (
            <input
              id={id}
              type="number"
              min={1}
              max={8}
              value={count}
              onChange={(e) => setCount(Number(e.target.value))}
            />
          )}
        </Field>
        <ErrorBox error={create.error} />
        <Button type="submit" isDisabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create pod'}
        </Button>
      </form>
    </Section>
  );
}
