import { StrictMode, useEffect, useState, type ComponentType } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiKeyList, SsoSessionView } from '@app/contracts';
import { api, ApiError, setCsrfToken, storedKey, storeKey } from './api';
import { Button, ToggleButton } from 'react-aria-components';
import { AccountSwitcher } from './account-switcher';
import { SignIn } from './sign-in';
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
import { QuotaPage } from './pages/quota/quota-page';
import { AllQuotasPage } from './pages/quota/all-quotas-page';
import { FleetPage } from './pages/fleet/fleet-page';
import './styles.css';

interface PageEntry {
  path: string;
  label: string;
  page: ComponentType<{ route: string[] }>;
  /** Only for keys of scope `operator` (the deployment's operators). */
  operator?: boolean;
}

const PAGES: readonly PageEntry[] = [
  { path: '', label: 'Overview', page: OverviewPage },
  { path: 'pods', label: 'Pods', page: PodsPage },
  { path: 'clusters', label: 'Clusters', page: ClustersPage },
  { path: 'endpoints', label: 'Serverless', page: EndpointsPage },
  { path: 'templates', label: 'Templates', page: TemplatesPage },
  { path: 'registries', label: 'Registry credentials', page: RegistriesPage },
  { path: 'volumes', label: 'Network volumes', page: VolumesPage },
  { path: 'ssh-keys', label: 'SSH keys', page: SshKeysPage },
  { path: 'usage', label: 'Usage', page: UsagePage },
  { path: 'quota', label: 'Quota', page: QuotaPage },
  { path: 'quotas', label: 'All quotas', page: AllQuotasPage, operator: true },
  { path: 'fleet', label: 'Fleet', page: FleetPage, operator: true },
  { path: 'api-keys', label: 'API keys', page: ApiKeysPage },
  { path: 'audit', label: 'Audit trail', page: AuditPage },
];

const SCOPES: Partial<Record<Session['key']['scope'], string>> = {
  full: 'full access',
  read: 'read only',
  operator: 'operator',
};

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

function Shell({ session }: { session: Session }) {
  const route = useRoute();
  const pages = PAGES.filter((p) => !p.operator || session.key.scope === 'operator');
  const current = pages.find((p) => p.path === (route[0] ?? '')) ?? pages[0];
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
          {session.sso ? (
            <>
              <span className="muted">
                signed in as <strong>{session.sso.user.name}</strong>
              </span>
              <AccountSwitcher session={session.sso} />
            </>
          ) : (
            <span className="muted">
              key <code>{session.key.prefix}…</code> ({SCOPES[session.key.scope] ?? session.key.scope})
            </span>
          )}
          <ThemeButton />
          <Button className="secondary" onPress={session.signOut}>
            Sign out
          </Button>
        </header>
        <nav aria-label="Console">
          <ul>
            {pages.map((p) => (
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

/** The roles that change things: a `billing` or `basic` member of a team is offered no write button. */
const WRITING_ROLES = new Set(['owner', 'admin', 'dev']);

/** The console session of a single sign-on, or null when there is none (or no single sign-on at all). */
async function ssoSession(): Promise<SsoSessionView | null> {
  try {
    const session = await api<SsoSessionView>('/console/sso/session');
    setCsrfToken(session.csrfToken);
    return session;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 404)) {
      setCsrfToken(null);
      return null;
    }
    throw error;
  }
}

function App() {
  const client = useQueryClient();
  const [key, setKey] = useState(storedKey);
  const sso = useQuery({
    queryKey: ['sso-session'],
    queryFn: ssoSession,
    enabled: key === null,
    retry: false,
    staleTime: Infinity,
  });
  const bySso = key === null && Boolean(sso.data);
  const me = useQuery({
    queryKey: ['session', key, sso.data?.account.id ?? null],
    queryFn: () => api<ApiKeyList>('/v2/account/api-keys'),
    enabled: key !== null || bySso,
    retry: false,
    staleTime: Infinity,
  });
  const signOut = () => {
    if (bySso) {
      // The session ends on the gateway (every replica); a fresh load of the page then forgets everything it held.
      void api('/console/sso/logout', { method: 'POST' })
        .catch(() => undefined)
        .then(() => window.location.assign('/console/'));
      return;
    }
    storeKey(null);
    client.clear();
    setKey(null);
  };
  useEffect(() => {
    if (me.error instanceof ApiError && me.error.status === 401) signOut();
  });
  if (key === null && sso.isPending) return <p role="status">Signing in…</p>;
  if (key === null && !sso.data) {
    return (
      <SignIn
        theme={<ThemeButton />}
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
  const session = bySso ? (sso.data ?? undefined) : undefined;
  const canWrite = me.data.current.scope === 'full' && (!session || WRITING_ROLES.has(session.account.role));
  return <Shell session={{ key: me.data.current, canWrite, signOut, sso: session }} />;
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
