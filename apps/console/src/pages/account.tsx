import { useState, type FormEvent } from 'react';
import { Button } from 'react-aria-components';
import { useQuery } from '@tanstack/react-query';
import type {
  DataCenterView,
  NetworkVolumeList,
  NetworkVolumeView,
  RegistryAuthView,
  RegistryList,
  SshKeySet,
} from '@app/contracts';
import { api } from '../api';
import { ErrorBox, Field, Loading, Section, WriteOnly, useAction, when } from '../ui';
import { ConfirmButton, TextInput } from '../controls';

export function RegistriesPage() {
  const registries = useQuery({
    queryKey: ['registries'],
    queryFn: () => api<RegistryList>('/v2/registries'),
  });
  const remove = useAction(
    (id: string) => api<void>(`/v2/registries/${id}`, { method: 'DELETE' }),
    [['registries']],
  );
  const [name, setName] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const create = useAction(
    () => api<RegistryAuthView>('/v2/registries', { method: 'POST', body: { name, username, password } }),
    [['registries']],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // The password is write-only: the API never shows it again, and the form forgets it once sent.
    create.mutate(undefined, { onSuccess: () => (setName(''), setUsername(''), setPassword('')) });
  };
  return (
    <>
      <WriteOnly>
        <Section title="New registry credential">
          <form onSubmit={submit} className="grid-form">
            <TextInput label="Name" value={name} onChange={setName} />
            <TextInput label="Username" autoComplete="off" value={username} onChange={setUsername} />
            <TextInput
              label="Password or token"
              hint="Write-only: it is never shown again"
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={setPassword}
            />
            <ErrorBox error={create.error} />
            <Button type="submit" isDisabled={create.isPending}>
              {create.isPending ? 'Saving…' : 'Save credential'}
            </Button>
          </form>
        </Section>
      </WriteOnly>
      <Section title="Registry credentials">
        <ErrorBox error={registries.error ?? remove.error} />
        {!registries.data ? (
          <Loading what="credentials" />
        ) : registries.data.registries.length === 0 ? (
          <p className="muted">No registry credentials.</p>
        ) : (
          <ul className="plain list">
            {registries.data.registries.map((r) => (
              <li key={r.id}>
                {r.name} <code className="muted">{r.id}</code>{' '}
                <WriteOnly>
                  <ConfirmButton
                    small
                    label="Delete"
                    accessibleLabel={`Delete registry credential ${r.name}`}
                    title={`Delete registry credential ${r.name}?`}
                    question="Pods and templates that use it can no longer pull their private images."
                    pending={remove.isPending && remove.variables === r.id}
                    onConfirm={() => remove.mutate(r.id)}
                  />
                </WriteOnly>
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}

export function VolumesPage() {
  const volumes = useQuery({
    queryKey: ['volumes'],
    queryFn: () => api<NetworkVolumeList>('/v2/network-volumes'),
  });
  const dataCenters = useQuery({
    queryKey: ['catalog', 'datacenters'],
    queryFn: () => api<DataCenterView[]>('/v2/catalog/datacenters'),
  });
  const remove = useAction(
    (id: string) => api<void>(`/v2/network-volumes/${id}`, { method: 'DELETE' }),
    [['volumes']],
  );
  const [name, setName] = useState('');
  const [size, setSize] = useState(10);
  const [dataCenter, setDataCenter] = useState('');
  const create = useAction(
    () => api<NetworkVolumeView>('/v2/network-volumes', { method: 'POST', body: { name, size, dataCenter } }),
    [['volumes']],
  );
  return (
    <>
      <WriteOnly>
        <Section title="New network volume">
          <form
            className="grid-form"
            onSubmit={(e) => {
              e.preventDefault();
              create.mutate(undefined);
            }}
          >
            <TextInput label="Name" value={name} onChange={setName} />
            <Field label="Size (GB)">
              {(id) => (
                <input id={id} type="number" value={size} onChange={(e) => setSize(Number(e.target.value))} />
              )}
            </Field>
            <Field label="Data center">
              {(id) => (
                <select id={id} value={dataCenter} onChange={(e) => setDataCenter(e.target.value)}>
                  <option value="">Choose…</option>
                  {dataCenters.data?.map((d) => (
                    <option key={d.id} value={d.id}>
                      {d.id} ({d.name})
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <ErrorBox error={create.error} />
            <Button type="submit" isDisabled={create.isPending}>
              {create.isPending ? 'Creating…' : 'Create volume'}
            </Button>
          </form>
        </Section>
      </WriteOnly>
      <Section title="Network volumes">
        <ErrorBox error={volumes.error ?? remove.error} />
        {!volumes.data ? (
          <Loading what="volumes" />
        ) : volumes.data.networkVolumes.length === 0 ? (
          <p className="muted">No network volumes.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Size</th>
                <th scope="col">Data center</th>
                <th scope="col">Created</th>
                <WriteOnly>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </WriteOnly>
              </tr>
            </thead>
            <tbody>
              {volumes.data.networkVolumes.map((v) => (
                <tr key={v.id}>
                  <td>{v.name}</td>
                  <td>{v.size} GB</td>
                  <td>{v.dataCenterId}</td>
                  <td>{when(v.createdAt)}</td>
                  <WriteOnly>
                    <td>
                      <ConfirmButton
                        small
                        label="Delete"
                        accessibleLabel={`Delete volume ${v.name}`}
                        title={`Delete volume ${v.name}?`}
                        question="Its data is gone for good."
                        pending={remove.isPending && remove.variables === v.id}
                        onConfirm={() => remove.mutate(v.id)}
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

export function SshKeysPage() {
  const keys = useQuery({ queryKey: ['ssh-keys'], queryFn: () => api<SshKeySet>('/v2/account/ssh-keys') });
  const [added, setAdded] = useState('');
  const replace = useAction(
    (next: string[]) => api<SshKeySet>('/v2/account/ssh-keys', { method: 'PUT', body: { keys: next } }),
    [['ssh-keys']],
  );
  const current = keys.data?.keys ?? [];
  return (
    <>
      <WriteOnly>
        <Section title="Add a public key">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              replace.mutate([...current, added.trim()], { onSuccess: () => setAdded('') });
            }}
          >
            <TextInput
              label="Public key"
              hint="One authorized_keys line, e.g. ssh-ed25519 AAAA… me@laptop"
              multiline
              value={added}
              onChange={setAdded}
            />
            <ErrorBox error={replace.error} />
            <Button type="submit" isDisabled={replace.isPending || !added.trim()}>
              {replace.isPending ? 'Saving…' : 'Add key'}
            </Button>
          </form>
        </Section>
      </WriteOnly>
      <Section title="SSH public keys">
        <p className="muted">Pods created from now on get these keys.</p>
        <ErrorBox error={keys.error} />
        {!keys.data ? (
          <Loading what="keys" />
        ) : current.length === 0 ? (
          <p className="muted">No keys.</p>
        ) : (
          <ul className="plain list">
            {current.map((k) => (
              <li key={k}>
                <code className="wrap">{k}</code>{' '}
                <WriteOnly>
                  <Button
                    className="danger small"
                    aria-label={`Remove key ${k.split(' ').slice(2).join(' ') || k.slice(0, 24)}`}
                    onPress={() => replace.mutate(current.filter((other) => other !== k))}
                  >
                    Remove
                  </Button>
                </WriteOnly>
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}
