import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { InfraError, poll, canAptInstall, aptInstall } from './infra-process.mjs';

// ---------------------------------------------------------------------------------------------------------------
// Apps

/** Polls `GET <url>/readyz` until it answers 200; throws after `timeoutMs` or when `signal` aborts. */
export async function waitForReady(url, timeoutMs, { signal } = {}) {
  const ready = await poll(async () => {
    if (signal?.aborted) return false;
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      return response.status === 200 ? true : undefined;
    } catch {
      return undefined;
    }
  }, timeoutMs);
  if (!ready) {
    throw new InfraError(`${url}/readyz did not answer 200 within ${Math.round(timeoutMs / 1000)} s`);
  }
}

/**
 * Chromium for the web console's browser tests (test/e2e/console.e2e-spec.ts, docs/adr/0029-web-console.md):
 * `$CHROMIUM_PATH`, or Debian's `chromium` package at /usr/bin/chromium, installed with apt-get when missing and
 * this is a Debian machine run as root. The tests drive it with playwright-core, which never downloads a browser.
 * Returns the executable's path.
 */
export async function ensureChromium() {
  const wanted = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (existsSync(wanted)) return wanted;
  if (process.env.CHROMIUM_PATH || !canAptInstall()) {
    throw new InfraError(
      `Chromium is missing at ${wanted}: the console's browser tests need it ` +
        '(apt-get install chromium, or set CHROMIUM_PATH to a Chromium or Chrome executable)',
    );
  }
  await aptInstall('chromium');
  if (!existsSync(wanted)) throw new InfraError(`apt-get installed chromium but ${wanted} is not there`);
  return wanted;
}

/**
 * Prometheus for the monitoring tests (deploy/components/monitoring): `promtool check rules` and `promtool test
 * rules` in the unit project (test/deploy/monitoring.spec.ts), a real server scraping the apps in the e2e project
 * (test/e2e/monitoring.e2e-spec.ts). `$PROMETHEUS_PATH` and `$PROMTOOL_PATH`, or Debian's `prometheus` package at
 * /usr/bin, installed with apt-get when missing and this is a Debian machine run as root. Returns both paths.
 */
export async function ensurePrometheus() {
  const wanted = {
    prometheus: process.env.PROMETHEUS_PATH || '/usr/bin/prometheus',
    promtool: process.env.PROMTOOL_PATH || '/usr/bin/promtool',
  };
  const present = () => existsSync(wanted.prometheus) && existsSync(wanted.promtool);
  if (present()) return wanted;
  if (process.env.PROMETHEUS_PATH || process.env.PROMTOOL_PATH || !canAptInstall()) {
    throw new InfraError(
      `Prometheus is missing at ${wanted.prometheus} or ${wanted.promtool}: the monitoring tests need both ` +
        '(apt-get install prometheus, or set PROMETHEUS_PATH and PROMTOOL_PATH)',
    );
  }
  await aptInstall('prometheus');
  if (!present()) throw new InfraError(`apt-get installed prometheus but ${wanted.promtool} is not there`);
  return wanted;
}

/**
 * kustomize v5 renders deploy/ for the manifest checks: `$KUSTOMIZE`, `kustomize`, or `kubectl kustomize`
 * (kubectl >= 1.27 embeds it). Not installable from Debian (its kubectl is 1.20), so this only checks.
 */
export function ensureKustomize() {
  const candidates = [
    [process.env.KUSTOMIZE || 'kustomize', ['version']],
    ['kubectl', ['version', '--client']],
  ];
  for (const [command, args] of candidates) {
    const result = spawnSync(command, args, { encoding: 'utf8' });
    const major = Number(/(?:Kustomize Version:\s*|kustomize\/|^)v?(\d+)\./m.exec(result.stdout ?? '')?.[1]);
    if (result.status === 0 && major >= 5) return `${command} (kustomize v${major})`;
  }
  throw new InfraError(
    'kustomize v5 is missing: install kubectl >= 1.27 (it embeds kustomize v5) or kustomize v5, or set KUSTOMIZE',
  );
}
