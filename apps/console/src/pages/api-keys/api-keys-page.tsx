import { useQuery } from '@tanstack/react-query';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import type { ApiKeyList, ApiKeyView } from '@app/contracts';
import { api } from '../../api';
import { ConfirmButton } from '../../controls';
import { ErrorBox, Loading, Section, StatusBadge, WriteOnly, useAction, useSession, when } from '../../ui';
import { CreateApiKey } from './create-api-key';
import { LISTED_SCOPE_LABELS } from './scopes';

/**
 * The signed-in user's API keys: a `full` key creates keys (the secret shown once) and revokes them; a read key
 * sees the list only. Revoking this session's own key signs the console out.
 */
export function ApiKeysPage() {
  const session = useSession();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => api<ApiKeyList>('/v2/account/api-keys') });
  const revoke = useAction(
    (id: string) => api<void>(`/v2/account/api-keys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    [['api-keys']],
  );
  const active = keys.data?.apiKeys.filter((k) => !k.revokedAt) ?? [];
  const revoked = keys.data?.apiKeys.filter((k) => k.revokedAt) ?? [];
  const onRevoke = (id: string) =>
    revoke.mutate(id, { onSuccess: () => id === session.key.id && session.signOut() });
  return (
    <>
      <WriteOnly>
        <CreateApiKey />
      </WriteOnly>
      <Section title="Your API keys">
        <p className="muted">The console shows only the first characters of a key.</p>
        <ErrorBox error={keys.error ?? revoke.error} />
        {!keys.data ? (
          <Loading what="keys" />
        ) : (
          <Tabs>
            <TabList aria-label="API keys" className="tabs">
              <Tab id="active" className="tab">
                Active ({active.length})
              </Tab>
              <Tab id="revoked" className="tab">
                Revoked ({revoked.length})
              </Tab>
            </TabList>
            <TabPanel id="active">
              <KeyTable
                label="Active API keys"
                keys={active}
                currentId={keys.data.current.id}
                onRevoke={onRevoke}
                revoking={revoke.isPending ? revoke.variables : undefined}
              />
            </TabPanel>
            <TabPanel id="revoked">
              <KeyTable label="Revoked API keys" keys={revoked} currentId={keys.data.current.id} />
            </TabPanel>
          </Tabs>
        )}
      </Section>
    </>
  );
}

function KeyTable({
  label,
  keys,
  currentId,
  onRevoke,
  revoking,
}: {
  label: string;
  keys: ApiKeyView[];
  currentId: string;
  onRevoke?: (id: string) => void;
  revoking?: string;
}) {
  if (!keys.length) return <p className="muted">None.</p>;
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Key</th>
          <th scope="col">Scope</th>
          <th scope="col">Created</th>
          <th scope="col">State</th>
          {onRevoke && (
            <WriteOnly>
              <th scope="col">Actions</th>
            </WriteOnly>
          )}
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => (
          <tr key={k.id}>
            <td>
              {k.name}
              {k.id === currentId && <strong> (this session)</strong>}
            </td>
            <td>
              <code>{k.prefix}…</code>
            </td>
            <td>
              {LISTED_SCOPE_LABELS[k.scope]}
              {k.endpointIds.length > 0 && `: ${k.endpointIds.join(', ')}`}
            </td>
            <td>{when(k.createdAt)}</td>
            <td>{k.revokedAt ? `revoked ${when(k.revokedAt)}` : <StatusBadge status="ACTIVE" />}</td>
            {onRevoke && (
              <WriteOnly>
                <td>
                  <ConfirmButton
                    small
                    label="Revoke"
                    accessibleLabel={`Revoke key ${k.name}`}
                    title={`Revoke key ${k.name}?`}
                    question={
                      k.id === currentId
                        ? 'This is the key of this session: the console signs out once it is revoked.'
                        : 'Every client using it is refused from now on; this cannot be undone.'
                    }
                    pending={revoking === k.id}
                    pendingLabel="Revoking…"
                    onConfirm={() => onRevoke(k.id)}
                  />
                </td>
              </WriteOnly>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
