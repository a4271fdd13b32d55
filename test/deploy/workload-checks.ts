import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import {
  type K8sObject,
  type Finding,
  type ConfigClass,
  type AppInfo,
  type CheckContext,
  METRICS_PORT_NAME,
  type Probe,
  type Container,
  type Workload,
  id,
  spec,
  allContainers,
  selectorMatches,
  type ResolvedEnv,
  resolveEnv,
  configVariables,
  requiredVariables,
} from './manifest-model.js';

/** Validates an environment as `loadConfig` does (empty counts as unset), returning every error and the config. */
export function validateConfig(
  cls: ConfigClass,
  env: Record<string, string>,
): { config: Record<string, unknown>; errors: { property: string; why: string }[] } {
  const known = new Set(configVariables(cls));
  const defined = Object.fromEntries(
    Object.entries(env).filter(([key, value]) => known.has(key) && value !== ''),
  );
  const config = plainToInstance(cls, defined, { exposeDefaultValues: true }) as Record<string, unknown>;
  const errors = validateSync(config, { skipMissingProperties: false }).map((error) => ({
    property: error.property,
    why: Object.values(error.constraints ?? {}).join('; ') || 'is invalid',
  }));
  return { config, errors };
}

export function checkConfig(
  cls: ConfigClass,
  owner: string,
  container: Container,
  env: ResolvedEnv,
  where: string,
  findings: Finding[],
): Record<string, unknown> {
  const { config, errors } = validateConfig(cls, env.values);
  for (const name of requiredVariables(cls)) {
    if (env.runtime.has(name)) continue;
    if (env.values[name] === undefined || env.values[name] === '') {
      findings.push({
        check: 'config',
        object: where,
        message: `${name} is required by ${owner}'s config but not provided (env or envFrom of ${container.name})`,
      });
    }
  }
  for (const { property, why } of errors) {
    const value = env.values[property];
    if (value === undefined || value === '' || env.runtime.has(property)) continue; // reported above
    findings.push({
      check: 'config',
      object: where,
      message: `${property}=${JSON.stringify(value)} is rejected by ${owner}'s config: ${why}`,
    });
  }
  return config;
}

// --- checks ----------------------------------------------------------------------------------------------------

export function commandLine(container: Container): string {
  return [...(container.command ?? []), ...(container.args ?? [])].join(' ');
}

export function resolvePort(container: Container, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  if (port === undefined) return undefined;
  if (/^\d+$/.test(port)) return Number(port);
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

export function preStopSeconds(container: Container): number | undefined {
  const preStop = container.lifecycle?.preStop;
  if (preStop?.sleep) return preStop.sleep.seconds;
  const command = preStop?.exec?.command ?? [];
  const match = /(?:^|\s)sleep\s+(\d+)/.exec(command.join(' '));
  return match ? Number(match[1]) : undefined;
}

export function checkAppContainer(
  app: AppInfo,
  workload: Workload,
  container: Container,
  objects: K8sObject[],
  ctx: CheckContext,
  findings: Finding[],
): void {
  const where = `${workload.id} ${container.name}`;
  const env = resolveEnv(container, objects, where, findings);
  const config = checkConfig(app.configClass, app.name, container, env, where, findings);
  const port = Number(config.HTTP_PORT);

  // ports and probes
  if (!(container.ports ?? []).some((p) => p.containerPort === port)) {
    findings.push({
      check: 'ports',
      object: where,
      message: `${app.name} listens on HTTP_PORT ${port} but the container declares ports ${JSON.stringify(
        (container.ports ?? []).map((p) => p.containerPort),
      )}`,
    });
  }
  const probes: [string, Probe | undefined, string[]][] = [
    ['readinessProbe', container.readinessProbe, [ctx.healthRoutes.readiness]],
    ['livenessProbe', container.livenessProbe, [ctx.healthRoutes.liveness]],
    ['startupProbe', container.startupProbe, [ctx.healthRoutes.liveness, ctx.healthRoutes.readiness]],
  ];
  for (const [name, probe, paths] of probes) {
    if (!probe) {
      if (name !== 'startupProbe') findings.push({ check: 'probes', object: where, message: `no ${name}` });
      continue;
    }
    if (!probe.httpGet) {
      findings.push({
        check: 'probes',
        object: where,
        message: `${name} is not an httpGet on the health routes`,
      });
      continue;
    }
    const path = (probe.httpGet.path ?? '/').split('?')[0];
    if (!paths.includes(path)) {
      findings.push({
        check: 'probes',
        object: where,
        message: `${name} path ${path} is not ${paths.join(' or ')} (served by HealthController)`,
      });
    }
    const probePort = resolvePort(container, probe.httpGet.port);
    if (probePort !== port) {
      findings.push({
        check: 'probes',
        object: where,
        message: `${name} port ${String(probe.httpGet.port)} (${probePort ?? 'unresolved'}) is not HTTP_PORT ${port}`,
      });
    }
  }

  // /metrics: its own port, declared as `metrics` (the NetworkPolicy and the scrape annotations name it), bound
  // where an in-cluster scraper reaches it; never the HTTP port (the gateway's is public).
  checkMetricsPort(app, container, config, port, where, findings);

  // Services in front of it must target the port it listens on
  for (const service of objects.filter((o) => o.kind === 'Service')) {
    const s = spec<{
      selector?: Record<string, string>;
      ports?: { port: number; targetPort?: number | string }[];
    }>(service);
    if (!s.selector || !selectorMatches({ matchLabels: s.selector }, workload.labels)) continue;
    for (const servicePort of s.ports ?? []) {
      const target = resolvePort(container, servicePort.targetPort ?? servicePort.port);
      if (target !== port) {
        findings.push({
          check: 'ports',
          object: id(service),
          message: `targetPort ${String(servicePort.targetPort ?? servicePort.port)} (${
            target ?? 'no such container port'
          }) of port ${servicePort.port} is not ${app.name}'s HTTP_PORT ${port}`,
        });
      }
    }
  }

  // graceful shutdown
  const grace = Number(config.SHUTDOWN_GRACE_MS ?? 0) / 1000;
  const sleep = preStopSeconds(container);
  const termination = workload.template.spec.terminationGracePeriodSeconds ?? 30;
  if (sleep === undefined) {
    findings.push({
      check: 'shutdown',
      object: where,
      message: 'no preStop sleep: the pod gets SIGTERM while its endpoints are still in the load balancers',
    });
  }
  if (termination <= (sleep ?? 0) + grace) {
    findings.push({
      check: 'shutdown',
      object: workload.id,
      message: `terminationGracePeriodSeconds ${termination} is not above preStop ${sleep ?? 0} s + SHUTDOWN_GRACE_MS ${
        grace * 1000
      } ms`,
    });
  }
}

/** Prometheus scrapes each app's own metrics listener (docs/adr/0014-edge-hardening.md). */
export function checkMetricsPort(
  app: AppInfo,
  container: Container,
  config: Record<string, unknown>,
  httpPort: number,
  where: string,
  findings: Finding[],
): void {
  const metricsPort = Number(config.METRICS_PORT);
  const declared = container.ports?.find((p) => p.name === METRICS_PORT_NAME);
  if (declared?.containerPort !== metricsPort) {
    findings.push({
      check: 'ports',
      object: where,
      message: `${app.name} serves /metrics on METRICS_PORT ${metricsPort} but the container's port "${METRICS_PORT_NAME}" is ${
        declared?.containerPort ?? 'not declared'
      }`,
    });
  }
  if (metricsPort === httpPort) {
    findings.push({
      check: 'ports',
      object: where,
      message: `METRICS_PORT is HTTP_PORT ${httpPort}: /metrics must not share the app's HTTP port`,
    });
  }
  if (/^(127\.|::1$|localhost$)/.test(String(config.METRICS_HOST))) {
    findings.push({
      check: 'ports',
      object: where,
      message: `METRICS_HOST ${String(config.METRICS_HOST)} is loopback: no scraper outside the pod reaches /metrics`,
    });
  }
}

export function checkSecurity(workload: Workload, findings: Finding[]): void {
  const pod = workload.template.spec;
  const podContext = pod.securityContext ?? {};
  const volumes = new Map((pod.volumes ?? []).map((volume) => [volume.name, volume]));
  for (const container of allContainers(pod)) {
    const where = `${workload.id} ${container.name}`;
    const context = { ...podContext, ...(container.securityContext ?? {}) };
    const add = (message: string) => findings.push({ check: 'security', object: where, message });
    if (context.runAsNonRoot !== true) add('runAsNonRoot is not true');
    if (context.runAsUser === 0) add('runs as user 0');
    if (container.securityContext?.allowPrivilegeEscalation !== false) {
      add('allowPrivilegeEscalation is not false');
    }
    if (container.securityContext?.readOnlyRootFilesystem !== true) add('readOnlyRootFilesystem is not true');
    if (container.securityContext?.privileged === true) add('is privileged');
    if (!container.securityContext?.capabilities?.drop?.includes('ALL')) add('capabilities do not drop ALL');
    if (!['RuntimeDefault', 'Localhost'].includes(context.seccompProfile?.type ?? '')) {
      add('no RuntimeDefault seccompProfile');
    }
    for (const field of ['requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']) {
      const [group, resource] = field.split('.') as ['requests' | 'limits', string];
      if (!container.resources?.[group]?.[resource]) add(`no resources.${field}`);
    }
    if (container.securityContext?.readOnlyRootFilesystem === true) {
      const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
      if (!tmp || !volumes.get(tmp.name)?.emptyDir) {
        add('read-only root filesystem without an emptyDir on /tmp');
      }
    }
  }
}
