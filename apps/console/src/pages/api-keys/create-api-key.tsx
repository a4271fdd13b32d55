import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import type { CreatedApiKey, EndpointV2List, UserApiKeyScope } from '@app/contracts';
import { api } from '../../api';
import { ModalDialog, SelectInput, TextInput } from '../../controls';
import { ErrorBox, Section, useAction } from '../../ui';
import { SCOPE_LABELS } from './scopes';

const SCOPE_OPTIONS = (Object.keys(SCOPE_LABELS) as UserApiKeyScope[]).map((id) => ({
  id,
  label: SCOPE_LABELS[id],
}));

/** The form of a new key, and the dialog that shows its secret this once. */
export function CreateApiKey() {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<UserApiKeyScope>('read');
  const [endpointIds, setEndpointIds] = useState<string[]>([]);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const create = useAction(
    () =>
      api<CreatedApiKey>('/v2/account/api-keys', {
        method: 'POST',
        body: { name: name.trim(), scope, ...(scope === 'endpoints' ? { endpointIds } : {}) },
      }),
    [['api-keys']],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Not disabled while it runs: a disabled button drops the focus, and the secret's dialog returns it there.
    if (create.isPending) return;
    create.mutate(undefined, {
      onSuccess: (key) => {
        setCreated(key);
        setName('');
        setEndpointIds([]);
      },
    });
  };
  return (
    <Section title="New API key">
      <form className="grid-form" noValidate onSubmit={submit}>
        <TextInput
          label="Name"
          hint="What the key is for, e.g. laptop or CI"
          value={name}
          onChange={setName}
        />
        <SelectInput
          label="Scope"
          hint="Never more than this session's key may do"
          value={scope}
          onChange={setScope}
          options={SCOPE_OPTIONS}
        />
        {scope === 'endpoints' && <EndpointChoice value={endpointIds} onChange={setEndpointIds} />}
        <ErrorBox error={create.error} />
        <div className="row wide">
          <Button type="submit">{create.isPending ? 'Creating key…' : 'Create key'}</Button>
        </div>
      </form>
      <ModalDialog
        title={`API key ${created?.name ?? ''} created`}
        isOpen={created !== null}
        onOpenChange={(open) => !open && setCreated(null)}
      >
        {(close) => created && <ShownOnce created={created} close={close} />}
      </ModalDialog>
    </Section>
  );
}

/** The secret, a copy button and the warning; nothing keeps it once the dialog closes. */
function ShownOnce({ created, close }: { created: CreatedApiKey; close: () => void }) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = () =>
    navigator.clipboard.writeText(created.key).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  return (
    <>
      <p>
        <strong>Copy the key now: you will not see it again.</strong> The list keeps only its first
        characters, <code>{created.prefix}…</code>, to recognise it.
      </p>
      <p>
        <code className="output secret">{created.key}</code>
      </p>
      <p role="status" className="muted">
        {copied === 'yes'
          ? 'Copied to the clipboard.'
          : copied === 'failed'
            ? 'Copying failed: select the key and copy it.'
            : ''}
      </p>
      <div className="row">
        <Button onPress={() => void copy()}>Copy key</Button>
        <Button className="secondary" onPress={close}>
          Done
        </Button>
      </div>
    </>
  );
}

/** The user's endpoints as checkboxes: a key of scope endpoints runs jobs of these only. */
function EndpointChoice({ value, onChange }: { value: string[]; onChange: (ids: string[]) => void }) {
  const endpoints = useQuery({
    queryKey: ['endpoints'],
    queryFn: () => api<EndpointV2List>('/v2/serverless'),
  });
  return (
    <fieldset className="wide">
      <legend>Endpoints whose jobs the key may run</legend>
      <ErrorBox error={endpoints.error} />
      {endpoints.data?.endpoints.length === 0 && <p className="muted">You have no endpoints yet.</p>}
      {endpoints.data?.endpoints.map((e) => (
        <label key={e.id}>
          <input
            type="checkbox"
            checked={value.includes(e.id)}
            onChange={(event) =>
              onChange(event.target.checked ? [...value, e.id] : value.filter((id) => id !== e.id))
            }
          />{' '}
          {e.name} <code className="muted">{e.id}</code>
        </label>
      ))}
    </fieldset>
  );
}
