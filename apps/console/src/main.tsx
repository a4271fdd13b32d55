import { StrictMode, useEffect, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiKeyList } from '@app/contracts';
import { api, ApiError, storedKey, storeKey } from './api';
import { Button, ToggleButton } from 'react-aria-components';
import { TextInput } from './controls';
import { ErrorBox, SessionContext, useRoute, type Session } from './ui';
import { OverviewPage } from './pages/overview';
import { PodsPage } from './pages/pods/pods-page';
import { ClustersPage } from './pages/clusters';
import { EndpointsPage } from './pages/endpoints/endpoints-page';
import { TemplatesPage } from './pages/templates';
import { RegistriesPage, SshKeysPage, VolumesPage } from './pages/account';
import { UsagePage } from './pages/usage';
import { AuditPage } from './pages/audit';
import { ApiKeysPage } from './pages/api-keys/api-keys-page';
import './styles.css';

const PAGES = [
  { path: '', label: 'Overview', page: OverviewPage },
  { path: 'pods', label: 'Pods', page: PodsPage },
  { path: 'clusters', label: 'Clusters', page: ClustersPage },
  { path: 'endpoints', label: 'Serverless', page: EndpointsPage },
  { path: 'templates', label: 'Templates', page: TemplatesPage },
  { path: 'registries', label: 'Registry credentials', page: RegistriesPage },
  { path: 'volumes', label: 'Network volumes', page: VolumesPage },
  { path: 'ssh-keys', label: 'SSH keys', page: SshKeysPage },
  { path: 'usage', label: 'Usage', page: UsagePage },
  { path: 'api-keys', label: 'API keys', page: ApiKeysPage },
  { path: 'audit', label: 'Audit trail', page: AuditPage },
] as const;

type Theme = 'light' | 'dark';

function initialTheme(): Theme {
  const saved = localStorage.getItem('gpucp.console.theme');
  if (saved === 'light' || saved === 'dark') return saved;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(initialTheme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('gpucp.console.theme', theme);
  }, [theme]);
  return [theme, () => setTheme((t) => (t === 'dark' ? 'light' : 'dark'))];
}

function ThemeButton() {
  const [theme, toggle] = useTheme();
  return (
    <ToggleButton className="secondary" onChange={toggle} isSelected={theme === 'dark'}>
      Dark theme
    </ToggleButton>
  );
}

function SignIn({ onSignedIn }: { onSignedIn: (key: string) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
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
      <ThemeButton />
    </main>
  );
}

function Shell({ session }: { session: Session }) {
  const route = useRoute();
  const current = PAGES.find((p) => p.path === (route[0] ?? '')) ?? PAGES[0];
  const Page = current.page;
  useEffect(() => {
    document.title = `${current.label} · GPU control plane`;
  }, [current.label]);
  return (
    <SessionContext.Provider value={session}>
      <a
        className="skip"
        href="#main"
        onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}
      >
        Skip to content
      </a>
      <div className="layout">
        <header className="top">
          <span className="brand">GPU control plane</span>
          <span className="muted">
            key <code>{session.key.prefix}…</code> (
            {session.key.scope === 'full' ? 'full access' : 'read only'})
          </span>
          <ThemeButton />
          <Button className="secondary" onPress={session.signOut}>
            Sign out
          </Button>
        </header>
        <nav aria-label="Console">
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <a href={`#/${p.path}`} aria-current={p === current ? 'page' : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          <h1>{current.label}</h1>
          <Page route={route.slice(1)} />
        </main>
      </div>
    </SessionContext.Provider>
  );
}

function App() {
  const client = useQueryClient();
  const [key, setKey] = useState(storedKey);
  const me = useQuery({
    queryKey: ['session', key],
    queryFn: () => api<ApiKeyList>('/v2/account/api-keys'),
    enabled: key !== null,
    retry: false,
    staleTime: Infinity,
  });
  const signOut = () => {
    storeKey(null);
    client.clear();
    setKey(null);
  };
  useEffect(() => {
    if (me.error instanceof ApiError && me.error.status === 401) signOut();
  });
  if (key === null) {
    return (
      <SignIn
        onSignedIn={(k) => {
          storeKey(k);
          setKey(k);
        }}
      />
    );
  }
  if (me.error) {
    return (
      <main className="sign-in">
        <ErrorBox error={me.error} />
        <Button onPress={signOut}>Sign in again</Button>
      </main>
    );
  }
  if (!me.data) return <p role="status">Signing in…</p>;
  return <Shell session={{ key: me.data.current, canWrite: me.data.current.scope === 'full', signOut }} />;
}

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Live pages poll while visible, never in a background tab; a 4xx is an answer, not a reason to retry.
      refetchIntervalInBackground: false,
      retry: (count, error) =>
        !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      staleTime: 1000,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
