import { useState, type FormEvent } from 'react';
import { Button } from 'react-aria-components';
import { useQuery } from '@tanstack/react-query';
import type { RegistryList, TemplateList, TemplateV2View } from '@app/contracts';
import { api } from '../api';
import { EnvField, ErrorBox, Field, PortsField, Loading, Section, WriteOnly, useAction, when } from '../ui';
import { ConfirmButton, TextInput } from '../controls';

/** `KEY=value` lines → an env object (blank lines skipped). */
export function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    env[eq < 0 ? trimmed : trimmed.slice(0, eq)] = eq < 0 ? '' : trimmed.slice(eq + 1);
  }
  return env;
}

export function parseList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function TemplatesPage() {
  const templates = useQuery({ queryKey: ['templates'], queryFn: () => api<TemplateList>('/v2/templates') });
  const remove = useAction(
    (id: string) => api<void>(`/v2/templates/${id}`, { method: 'DELETE' }),
    [['templates']],
  );
  return (
    <>
      <WriteOnly>
        <CreateTemplate />
      </WriteOnly>
      <Section title="Templates">
        <ErrorBox error={templates.error ?? remove.error} />
        {!templates.data ? (
          <Loading what="templates" />
        ) : templates.data.templates.length === 0 ? (
          <p className="muted">No templates yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Image</th>
                <th scope="col">Kind</th>
                <th scope="col">Ports</th>
                <th scope="col">Created</th>
                <WriteOnly>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </WriteOnly>
              </tr>
            </thead>
            <tbody>
              {templates.data.templates.map((t) => (
                <tr key={t.id}>
                  <td>{t.name}</td>
                  <td>
                    <code>{t.image}</code>
                  </td>
                  <td>{t.serverless ? 'serverless' : 'pod'}</td>
                  <td>{t.ports.join(', ') || '—'}</td>
                  <td>{when(t.createdAt)}</td>
                  <WriteOnly>
                    <td>
                      <ConfirmButton
                        small
                        label="Delete"
                        accessibleLabel={`Delete template ${t.name}`}
                        title={`Delete template ${t.name}?`}
                        question="Pods and endpoints made from it keep running; it can no longer be chosen."
                        pending={remove.isPending && remove.variables === t.id}
                        onConfirm={() => remove.mutate(t.id)}
                      />
                    </td>
                  </WriteOnly>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}

function CreateTemplate() {
  const registries = useQuery({
    queryKey: ['registries'],
    queryFn: () => api<RegistryList>('/v2/registries'),
  });
  const [name, setName] = useState('');
  const [image, setImage] = useState('');
  const [serverless, setServerless] = useState(false);
  const [disk, setDisk] = useState(10);
  const [ports, setPorts] = useState('');
  const [env, setEnv] = useState('');
  const [registry, setRegistry] = useState('');
  const create = useAction(
    () =>
      api<TemplateV2View>('/v2/templates', {
        method: 'POST',
        body: {
          name,
          image,
          serverless,
          disk,
          ports: parseList(ports),
          env: parseEnv(env),
          ...(registry ? { registry } : {}),
        },
      }),
    [['templates']],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined, {
      onSuccess: () => {
        setName('');
        setImage('');
      },
    });
  };
  return (
    <Section title="New template">
      <form onSubmit={submit} className="grid-form">
        <TextInput label="Name" value={name} onChange={setName} />
        <TextInput label="Image" placeholder="repo/image:tag" value={image} onChange={setImage} />
        <Field label="Container disk (GB)">
          {(id) => (
            <input
              id={id}
              type="number"
              min={1}
              value={disk}
              onChange={(e) => setDisk(Number(e.target.value))}
            />
          )}
        </Field>
        <PortsField value={ports} onChange={setPorts} />
        <EnvField value={env} onChange={setEnv} />
        <Field label="Registry credential">
          {(id) => (
            <select id={id} value={registry} onChange={(e) => setRegistry(e.target.value)}>
              <option value="">None (public image)</option>
              {registries.data?.registries.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div className="field checkbox">
          <input
            id="template-serverless"
            type="checkbox"
            checked={serverless}
            onChange={(e) => setServerless(e.target.checked)}
          />
          <label htmlFor="template-serverless">Serverless (for endpoints)</label>
        </div>
        <ErrorBox error={create.error} />
        <Button type="submit" isDisabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create template'}
        </Button>
        {create.isSuccess && <p role="status">Template {create.data.name} created.</p>}
      </form>
    </Section>
  );
}
