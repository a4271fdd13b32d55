import { useQuery } from '@tanstack/react-query';
import type { ApiKeyList } from '@app/contracts';
import { api } from '../api';
import { ErrorBox, Loading, Section, StatusBadge, when } from '../ui';

const SCOPES = {
  full: 'full access',
  read: 'read only',
  endpoints: 'job routes of some endpoints',
} as const;

export function ApiKeysPage() {
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => api<ApiKeyList>('/v2/account/api-keys') });
  return (
    <Section title="Your API keys">
      <p className="muted">
        Keys are issued and revoked by the operator (<code>npm run keys</code>); the console shows their first
        characters only.
      </p>
      <ErrorBox error={keys.error} />
      {!keys.data ? (
        <Loading what="keys" />
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scope</th>
              <th scope="col">Created</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.apiKeys.map((k) => (
              <tr key={k.id}>
                <td>
                  {k.name}
                  {k.id === keys.data.current.id && <strong> (this session)</strong>}
                </td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>
                  {SCOPES[k.scope]}
                  {k.endpointIds.length > 0 && `: ${k.endpointIds.join(', ')}`}
                </td>
                <td>{when(k.createdAt)}</td>
                <td>{k.revokedAt ? `revoked ${when(k.revokedAt)}` : <StatusBadge status="ACTIVE" />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
