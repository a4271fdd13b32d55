import { beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { ROOT } from '../support/paths.js';
import { loadApps } from './context.js';
import type { K8sObject } from './manifest-checks.js';
import { findRenderer, prodSecretFiles, renderOverlay } from './render.js';

const DEPLOY = join(ROOT, 'deploy');

interface Container {
  name: string;
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { secretRef?: { name: string } }[];
}
const containersOf = (o: K8sObject) =>
  (o.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers;
const secretData = (o: K8sObject) =>
  Object.fromEntries(
    Object.entries((o.data ?? {}) as Record<string, string>).map(([k, v]) => [
      k,
      Buffer.from(v, 'base64').toString('utf8'),
    ]),
  );

/**
 * NATS requires authentication (docs/adr/0015): nats.conf names one user per app with its password from the
 * environment, the NATS container gets those from the Secret nats-credentials, and each app logs in as its own
 * user with its own key of that Secret. test/e2e/nats-auth.e2e-spec.ts runs the same block in a real nats-server.
 */
describe.each(['dev', 'prod'])('deploy/ NATS authentication (%s)', (overlay) => {
  let objects: K8sObject[];
  let apps: string[];

  beforeAll(async () => {
    objects = renderOverlay(
      findRenderer(),
      DEPLOY,
      overlay,
      overlay === 'prod' ? prodSecretFiles(DEPLOY) : {},
    );
    apps = (await loadApps(ROOT)).map((app) => app.name);
  });

  const find = (kind: string, name: string) =>
    objects.find(
      (o) => o.kind === kind && (o.metadata.name === name || o.metadata.name.startsWith(`${name}-`)),
    )!;

  it('gives every app a user with its own password, and nobody else in', () => {
    const conf = (find('ConfigMap', 'nats-config').data as Record<string, string>)['nats.conf'];
    const users = [...conf.matchAll(/\{\s*user:\s*"([^"]+)",?\s*password:\s*\$([A-Z0-9_]+)\s*\}/g)].map(
      ([, user, variable]) => [user, variable],
    );
    expect(users).toEqual(
      apps.map((app) => [app, `NATS_PASSWORD_${app.toUpperCase().replaceAll('-', '_')}`]),
    );
    expect(conf).toMatch(/^authorization \{/m);
    expect(conf).not.toMatch(/no_auth_user|allow_non_tls|^\s*(user|password|token)\s*:/m);

    const nats = containersOf(find('StatefulSet', 'nats')).find((c) => c.name === 'nats')!;
    const secret = find('Secret', 'nats-credentials');
    expect(nats.envFrom).toContainEqual({ secretRef: { name: secret.metadata.name } });
    const passwords = secretData(secret);
    for (const [, variable] of users) {
      // nats.conf parses the value like a config value: a number, `true` or a space would break the server's start.
      expect(`${variable}=${passwords[variable]}`).toMatch(/^[A-Z_]+=[A-Za-z][A-Za-z0-9_-]{7,}$/);
    }
    expect(new Set(Object.values(passwords)).size).toBe(apps.length);
  });

  it('has each app log in as itself with its own key of nats-credentials', () => {
    const secret = find('Secret', 'nats-credentials').metadata.name;
    for (const app of apps) {
      const [container] = containersOf(find('Deployment', app));
      const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e]));
      expect({ app, user: env.NATS_USER?.value, password: env.NATS_PASSWORD?.valueFrom }).toEqual({
        app,
        user: app,
        password: {
          secretKeyRef: { name: secret, key: `NATS_PASSWORD_${app.toUpperCase().replaceAll('-', '_')}` },
        },
      });
    }
  });
});
