import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { SsoSessionView } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { ROOT } from '../support/paths.js';
import { deleteStreams, freePorts, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { CHROMIUM, CHROMIUM_ARGS, auditRowsOf, createPodInPage } from './console-sso.e2e-helpers.js';
import { CLIENT_ID, CLIENT_SECRET, startOidcProvider } from './oidc-provider.e2e-helpers.js';

const FAILURES = join(ROOT, 'test-results', 'console-sso');
/**
 * The provider's people and their groups; `ml-research` maps to the team `research` as `dev`, `ml-leads` as
 * `admin` (the higher wins: ada reads the team's audit trail).
 */
const GROUPS: Record<string, string[]> = { ada: ['ml-research', 'ml-leads', 'unmapped'] };

/**
 * Single sign-on of the web console, end to end: a real OpenID provider (`oidc-provider`, in this process, with
 * its development login and consent pages), two gateway replicas configured with it, and Chromium signing in,
 * switching to a team, and signing out. Replica 1 keeps the safe default (Secure, `__Host-` cookies); replica 0,
 * which the browser uses over plain http, runs with SSO_COOKIE_SECURE=false. Both trust a session for a minute
 * (SSO_SESSION_CACHE_MS), so only the sign-out's message on NATS can make replica 1 refuse it at once.
 */
describe('console single sign-on (OpenID Connect), in Chromium', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let server: Server;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  let other: string;
  let issuer: string;
  let sessionId = '';
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];

  async function step(name: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (error) {
      mkdirSync(FAILURES, { recursive: true });
      const file = join(FAILURES, `${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
      await page?.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      (error as Error).message += `\n(screenshot: ${file})`;
      throw error;
    }
  }

  /** A request to `url` carrying the session cookie under `name` (as the browser would), nothing else. */
  function withSession(url: string, name: string, init: RequestInit = {}): Promise<Response> {
    return fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: `${name}=${sessionId}` },
    });
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is missing at ${CHROMIUM}: run the tests with npm test (it installs it)`);
    }
    db = await createTestDatabase('console_sso');
    const [providerPort] = await freePorts(1);
    issuer = `http://127.0.0.1:${providerPort}`;
    // Every app: the test creates a pod in the team and reads it back from the audit trail.
    system = await startApps({
      databaseUrl: db.url,
      replicas: { gateway: 2 },
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '150', SIM_START_MS: '150' },
        gateway: {
          OIDC_ISSUER_URL: issuer,
          OIDC_CLIENT_ID: CLIENT_ID,
          OIDC_CLIENT_SECRET: CLIENT_SECRET,
          OIDC_SCOPES: 'openid profile email groups',
          OIDC_GROUP_TEAMS: 'ml-research=research:dev,ml-leads=research:admin,platform=platform:admin',
          OIDC_PROVIDER_NAME: 'Test IdP',
          SSO_COOKIE_SECURE: 'false',
          SSO_SESSION_CACHE_MS: '60000',
          RATE_LIMITS_ENABLED: 'false',
        },
      },
    });
    [base, other] = system.urls('gateway');
    // Replica 1 with the default: Secure cookies named __Host-.
    await system.restart('gateway', { SSO_COOKIE_SECURE: 'true' }, 1);

    // The provider is made once the gateways' ports are known (its client lists their callbacks): the gateways
    // discover it on the first sign-in, not at start.
    server = startOidcProvider(
      providerPort,
      system.urls('gateway').map((url) => `${url}/console/sso/callback`),
      GROUPS,
    );

    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'console-sso-chromium-')), {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      viewport: { width: 1366, height: 900 },
    });
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text()) && page.url().startsWith(base)) {
        cspViolations.push(message.text());
      }
    });
    page.on('pageerror', (error) => pageErrors.push(error.stack ?? error.message));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    server?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it('says single sign-on is configured, and starts a sign-in with state, nonce, PKCE and a sealed login cookie', async () => {
    const config = await fetch(`${base}/console/sso/config`);
    expect(await config.json()).toEqual({ enabled: true, providerName: 'Test IdP' });
    // Replica 1 (the safe default): the login cookie is __Host-, Secure, HttpOnly, SameSite=Lax, short-lived.
    const login = await fetch(`${other}/console/sso/login`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(
      /^__Host-gpucp_sso_login=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=600; HttpOnly; Secure; SameSite=Lax$/,
    );
    const to = new URL(login.headers.get('location') ?? '');
    expect(to.origin).toBe(issuer);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get('state')).toBeTruthy();
    expect(to.searchParams.get('nonce')).toBeTruthy();
    expect(to.searchParams.get('redirect_uri')).toBe(`${other}/console/sso/callback`);
    // A callback without the browser's login cookie is refused, back on the console's sign-in page.
    const forged = await fetch(`${other}/console/sso/callback?code=x&state=${to.searchParams.get('state')}`, {
      redirect: 'manual',
    });
    expect(forged.headers.get('location')).toMatch(/^\/console\/\?sso_error=/);
  });

  it('signs in through the provider: the user is created, the session cookie is HttpOnly and SameSite', async () => {
    await step('sso sign in', async () => {
      await page.goto(`${base}/console/`);
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
      await page.locator('input[name=login]').fill('ada');
      await page.locator('input[name=password]').fill('any');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL((url) => url.href.startsWith(`${base}/console/`));
      const error = new URL(page.url()).searchParams.get('sso_error');
      if (error) {
        throw new Error(
          `the gateway refused the sign-in: ${error}. If it timed out, account.cmd.create-user has no handler yet ` +
            '(apps/gateway/src/accounts, issue 52). The gateway said:\n' +
            system
              .logs('gateway', 0)
              .split('\n')
              .filter((line) => /sso/.test(line))
              .slice(-5)
              .join('\n'),
        );
      }
      await page.getByText('signed in as').waitFor();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });
    const cookies = await context.cookies(base);
    const session = cookies.find((c) => c.name === 'gpucp_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false });
    expect(cookies.find((c) => c.name === 'gpucp_sso_login')).toBeUndefined();
    sessionId = session?.value ?? '';
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only the SHA-256 of the id is stored.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const rows = await client.query<{ id_hash: string }>('SELECT id_hash FROM gateway.console_sessions');
      expect(rows.rows.map((r) => r.id_hash)).toEqual([createHash('sha256').update(sessionId).digest('hex')]);
    } finally {
      await client.end();
    }
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });

  it('refuses a mutation made with the session cookie but without its CSRF token; an API key needs none', async () => {
    const body = JSON.stringify({ name: 'from-console', scope: 'read' });
    const post = (csrf?: string) =>
      page.evaluate(
        async ({ body, csrf }) => {
          const response = await fetch('/v2/account/api-keys', {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(csrf ? { 'x-csrf-token': csrf } : {}) },
            body,
          });
          return { status: response.status, text: await response.text() };
        },
        { body, csrf },
      );
    const refused = await post();
    expect(refused.status).toBe(403);
    expect(refused.text).toMatch(/CSRF/);
    expect((await post('not-the-token')).status).toBe(403);
    const session = (await page.evaluate(() =>
      fetch('/console/sso/session').then((r) => r.json()),
    )) as SsoSessionView;
    expect(session.user.name).toBe('ada');
    expect((await post(session.csrfToken)).status).toBe(201);
    // A read is no mutation: no token needed.
    expect(await page.evaluate(() => fetch('/v2/account/api-keys').then((r) => r.status))).toBe(200);
    // An API key in the Authorization header is unaffected (and wins over a cookie sent with it).
    const key = await userWithKey(db.url, 'sso-key-user');
    const withKey = await withSession(`${base}/v2/account/api-keys`, 'gpucp_session', {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body,
    });
    expect(withKey.status).toBe(201);
  });

  it('switches to a team the provider groups map to, acting there with the mapped role', async () => {
    const session = (await (
      await withSession(`${base}/console/sso/session`, 'gpucp_session')
    ).json()) as SsoSessionView;
    const team = session.accounts.find((a) => a.name === 'research');
    if (!team) {
      // Not skipped: the mapping must have made ada a member, through the account commands.
      throw new Error(
        `no team "research" among ${JSON.stringify(session.accounts)}: account.cmd.create-team/add-member ` +
          'have no handlers yet, or they failed (see the gateway log)',
      );
    }
    expect(team).toMatchObject({ kind: 'team', role: 'admin' });
    expect(session.accounts.some((a) => a.name === 'platform')).toBe(false);
    await step('switch team', async () => {
      const switched = page.waitForResponse((r) => r.url().endsWith('/console/sso/account'));
      await page.getByLabel('Account').selectOption({ label: 'research (team, admin)' });
      expect((await switched).status()).toBe(204);
      // The console reads its session again: the switcher now names the team.
      const deadline = Date.now() + 10_000;
      while ((await page.getByLabel('Account').inputValue()) !== team.id) {
        if (Date.now() > deadline) throw new Error('the switcher still names the personal account');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });
    const now = (await (
      await withSession(`${base}/console/sso/session`, 'gpucp_session')
    ).json()) as SsoSessionView;
    expect(now.account).toMatchObject({ id: team.id, kind: 'team', role: 'admin' });
  });

  it("creates a pod in the team from the console's session, and finds it in the team's audit trail", async () => {
    const session = (await page.evaluate(() =>
      fetch('/console/sso/session').then((r) => r.json()),
    )) as SsoSessionView;
    const created = await createPodInPage(page, session.csrfToken);
    expect(created.status).toBe(201);
    // The team's: the session, acting for the team, lists it.
    const pods = (await (await withSession(`${base}/v2/pods`, 'gpucp_session')).json()) as {
      pods: { id: string }[];
    };
    expect(pods.pods.map((p) => p.id)).toEqual([created.id]);
    await step('team audit trail', async () => {
      // Who did it: the member (ada), not the team.
      expect((await auditRowsOf(page, created.id, 'pod.create')).join('\n')).toContain(session.user.id);
    });
  });

  it('signs out: the session is gone from the database and refused at once on the other replica', async () => {
    // Replica 1 reads the session first, so it holds it in its cache (for a minute).
    expect((await withSession(`${other}/console/sso/session`, '__Host-gpucp_session')).status).toBe(200);
    await step('sign out', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    });
    const cookies = await context.cookies(base);
    expect(cookies.find((c) => c.name === 'gpucp_session')).toBeUndefined();
    // Within a second (the NATS message), long before replica 1's cache would have let the session go.
    const deadline = Date.now() + 1000;
    let status: number;
    do {
      status = (await withSession(`${other}/console/sso/session`, '__Host-gpucp_session')).status;
    } while (status !== 401 && Date.now() < deadline);
    expect(status).toBe(401);
    expect((await withSession(`${other}/v2/account/api-keys`, '__Host-gpucp_session')).status).toBe(401);
    expect((await withSession(`${base}/v2/account/api-keys`, 'gpucp_session')).status).toBe(401);
    expect(pageErrors).toEqual([]);
  });
});
