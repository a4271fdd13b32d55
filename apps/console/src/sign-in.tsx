import { useState, type FormEvent, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import type { ApiKeyList, SsoConfigView } from '@app/contracts';
import { api, ApiError } from './api';
import { TextInput } from './controls';
import { ErrorBox } from './ui';

/** Why the last single sign-on failed, as the gateway's callback said (`/console/?sso_error=...`), once. */
function ssoError(): ApiError | null {
  const params = new URLSearchParams(window.location.search);
  const detail = params.get('sso_error');
  if (!detail) return null;
  window.history.replaceState(null, '', window.location.pathname + window.location.hash);
  return new ApiError(401, detail);
}

/**
 * "Sign in with <provider>" when the gateway has single sign-on (GET /console/sso/config): a plain navigation to
 * /console/sso/login, which sends the browser to the provider and back with an HttpOnly session cookie.
 */
function SingleSignOn() {
  const config = useQuery({
    queryKey: ['sso-config'],
    queryFn: () => api<SsoConfigView>('/console/sso/config'),
    retry: false,
    staleTime: Infinity,
  });
  if (!config.data?.enabled) return null;
  const returnTo = window.location.hash.startsWith('#/')
    ? `?returnTo=${encodeURIComponent(window.location.hash)}`
    : '';
  return (
    <div className="card">
      <h2>Single sign-on</h2>
      <a className="button-link" href={`/console/sso/login${returnTo}`}>
        Sign in with {config.data.providerName}
      </a>
    </div>
  );
}

export function SignIn({ onSignedIn, theme }: { onSignedIn: (key: string) => void; theme: ReactNode }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(ssoError);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api<ApiKeyList>('/v2/account/api-keys', { key: key.trim() });
      onSignedIn(key.trim());
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="sign-in">
      <h1>GPU control plane</h1>
      <SingleSignOn />
      <form onSubmit={(e) => void submit(e)} className="card">
        <h2>Sign in</h2>
        <p className="muted">
          Paste an API key (from the console's API keys page, or <code>npm run keys</code>). It is kept in
          this tab&apos;s session storage only.
        </p>
        <TextInput
          label="API key"
          type="password"
          autoComplete="off"
          isRequired
          value={key}
          onChange={setKey}
        />
        <ErrorBox error={error} />
        <Button type="submit" isDisabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
      {theme}
    </main>
  );
}
