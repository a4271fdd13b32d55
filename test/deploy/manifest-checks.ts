import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';

/**
 * Checks of rendered Kubernetes manifests against what the apps really do: their config classes (required
 * variables, valid values, HTTP_PORT), their health routes, their entry points, and the deployment rules of
 * deploy/README.md. Pure functions over parsed objects, so a test can feed them a broken manifest.
 */

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export type Check =
  | 'schema'
  | 'references'
  | 'config'
  | 'ports'
  | 'probes'
  | 'security'
  | 'shutdown'
  | 'migration'
  | 'network'
  | 'scaling'
  | 'nats';

export interface Finding {
  check: Check;
  /** `Kind/name`, or `Kind/name container` for one container. */
  object: string;
  message: string;
}

export type ConfigClass = new () => object;

export interface AppInfo {
  name: string;
  configClass: ConfigClass;
  /** What its Deployment runs: `dist/apps/<app>/server.mjs` (the bundle, ADR 24). */
  entry: string;
  /** What the migration Job runs for it: `dist/apps/<app>/migrate.mjs` (the bundle, ADR 24). */
  migrate: string;
}

export interface CheckContext {
  apps: AppInfo[];
  /** The config class of migrate.mjs (only DATABASE_URL). */
  migrationConfigClass: ConfigClass;
  /** Paths served by the health controller. */
  healthRoutes: { liveness: string; readiness: string };
  /** Apps that may be reached from outside the namespace. */
  publicApps: string[];
}

/** Label of everything the migration Job needs, applied before the rollout (deploy/README.md, "Upgrading"). */
export const MIGRATE_PHASE_LABEL = 'gpucp.io/rollout-phase';
/** Name of every app container's /metrics port. */
export const METRICS_PORT_NAME = 'metrics';
const NATS_MIN_VERSION = [2, 10] as const;

// --- small typed views of the fields we read ------------------------------------------------------------------

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}
interface Probe {
  httpGet?: { path?: string; port: number | string };
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    fieldRef?: { fieldPath: string };
  };
}
interface EnvFrom {
  prefix?: string;
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
}
interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: EnvFrom[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command?: string[] }; sleep?: { seconds: number } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; mountPath: string }[];
}
interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  privileged?: boolean;
  capabilities?: { drop?: string[] };
  seccompProfile?: { type: string };
}
interface Volume {
  name: string;
  emptyDir?: object;
  configMap?: { name: string };
  secret?: { secretName: string };
  persistentVolumeClaim?: { claimName: string };
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  securityContext?: SecurityContext;
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
}
interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec: PodSpec;
}

/** A Deployment, StatefulSet, Job or DaemonSet, with its pod template. */
interface Workload {
  object: K8sObject;
  id: string;
  template: PodTemplate;
  labels: Record<string, string>;
  claimTemplates: string[];
}

const id = (object: K8sObject) => `${object.kind}/${object.metadata?.name}`;
const spec = <T>(object: K8sObject) => (object.spec ?? {}) as T;

function workloads(objects: K8sObject[]): Workload[] {
  return objects.flatMap((object) => {
    if (!['Deployment', 'StatefulSet', 'Job', 'DaemonSet'].includes(object.kind)) return [];
    const s = spec<{ template?: PodTemplate; volumeClaimTemplates?: { metadata: { name: string } }[] }>(
      object,
    );
    if (!s.template?.spec) return [];
    return [
      {
        object,
        id: id(object),
        template: s.template,
        labels: s.template.metadata?.labels ?? {},
        claimTemplates: (s.volumeClaimTemplates ?? []).map((claim) => claim.metadata.name),
      },
    ];
  });
}

function allContainers(pod: PodSpec): Container[] {
  return [...(pod.initContainers ?? []), ...(pod.containers ?? [])];
}

export function selectorMatches(selector: Selector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    switch (operator) {
      case 'In':
        return values.includes(labels[key]);
      case 'NotIn':
        return !values.includes(labels[key]);
      case 'Exists':
        return key in labels;
      case 'DoesNotExist':
        return !(key in labels);
      default:
        return false;
    }
  });
  return byLabels && byExpressions;
}

const isEmptySelector = (selector: Selector | undefined) =>
  !!selector &&
  Object.keys(selector.matchLabels ?? {}).length === 0 &&
  (selector.matchExpressions ?? []).length === 0;

function find(objects: K8sObject[], kind: string, name: string): K8sObject | undefined {
  return objects.find((object) => object.kind === kind && object.metadata?.name === name);
}

function secretData(secret: K8sObject): Record<string, string> {
  const data = Object.fromEntries(
    Object.entries((secret.data ?? {}) as Record<string, string>).map(([key, value]) => [
      key,
      Buffer.from(value, 'base64').toString('utf8'),
    ]),
  );
  return { ...data, ...((secret.stringData ?? {}) as Record<string, string>) };
}

// --- environment -----------------------------------------------------------------------------------------------

interface ResolvedEnv {
  values: Record<string, string>;
  /** Variables whose value is only known at run time (fieldRef, resourceFieldRef). */
  runtime: Set<string>;
}

/** The environment a container gets, from env and envFrom, reporting references to objects that do not exist. */
function resolveEnv(
  container: Container,
  objects: K8sObject[],
  where: string,
  findings: Finding[],
): ResolvedEnv {
  const values: Record<string, string> = {};
  const runtime = new Set<string>();
  const missing = (kind: string, name: string, key?: string) =>
    findings.push({
      check: 'references',
      object: where,
      message: `refers to ${kind} "${name}"${key ? ` key ${key}` : ''}, which the manifests do not define`,
    });
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    if (from.configMapRef) {
      const configMap = find(objects, 'ConfigMap', from.configMapRef.name);
      if (!configMap) {
        if (!from.configMapRef.optional) missing('ConfigMap', from.configMapRef.name);
        continue;
      }
      for (const [key, value] of Object.entries((configMap.data ?? {}) as Record<string, string>)) {
        values[prefix + key] = value;
      }
    }
    if (from.secretRef) {
      const secret = find(objects, 'Secret', from.secretRef.name);
      if (!secret) {
        if (!from.secretRef.optional) missing('Secret', from.secretRef.name);
        continue;
      }
      for (const [key, value] of Object.entries(secretData(secret))) values[prefix + key] = value;
    }
  }
  for (const variable of container.env ?? []) {
    const source = variable.valueFrom;
    if (!source) {
      values[variable.name] = variable.value ?? '';
    } else if (source.configMapKeyRef) {
      const ref = source.configMapKeyRef;
      const data = (find(objects, 'ConfigMap', ref.name)?.data ?? undefined) as
        Record<string, string> | undefined;
      if (data?.[ref.key] !== undefined) values[variable.name] = data[ref.key];
      else if (!ref.optional) missing('ConfigMap', ref.name, ref.key);
    } else if (source.secretKeyRef) {
      const ref = source.secretKeyRef;
      const secret = find(objects, 'Secret', ref.name);
      const value = secret ? secretData(secret)[ref.key] : undefined;
      if (value !== undefined) values[variable.name] = value;
      else if (!ref.optional) missing('Secret', ref.name, ref.key);
    } else {
      runtime.add(variable.name);
    }
  }
  return { values, runtime };
}

// --- config classes --------------------------------------------------------------------------------------------

/** Every variable a config class reads: its properties with a default and those with validation metadata. */
export function configVariables(cls: ConfigClass): string[] {
  return [
    ...new Set([
      ...Object.keys(new cls()),
      ...getMetadataStorage()
        .getTargetValidationMetadatas(cls, '', true, false)
        .map((m) => m.propertyName),
    ]),
  ];
}

/** Variables the class requires: validated, no default, not @IsOptional(). */
export function requiredVariables(cls: ConfigClass): string[] {
  const defaults = new cls() as Record<string, unknown>;
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const optional = new Set(
    metadata.filter((m) => m.type === 'conditionalValidation').map((m) => m.propertyName),
  );
  return configVariables(cls).filter((name) => defaults[name] === undefined && !optional.has(name));
}

/** Validates an environment as `loadConfig` does (empty counts as unset), returning every error and the config. */
function validateConfig(
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

function checkConfig(
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

function commandLine(container: Container): string {
  return [...(container.command ?? []), ...(container.args ?? [])].join(' ');
}

function resolvePort(container: Container, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  if (port === undefined) return undefined;
  if (/^\d+$/.test(port)) return Number(port);
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

function preStopSeconds(container: Container): number | undefined {
  const preStop = container.lifecycle?.preStop;
  if (preStop?.sleep) return preStop.sleep.seconds;
  const command = preStop?.exec?.command ?? [];
  const match = /(?:^|\s)sleep\s+(\d+)/.exec(command.join(' '));
  return match ? Number(match[1]) : undefined;
}

function checkAppContainer(
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
function checkMetricsPort(
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

function checkSecurity(workload: Workload, findings: Finding[]): void {
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

function checkReferences(objects: K8sObject[], loads: Workload[], findings: Finding[]): void {
  for (const workload of loads) {
    const pod = workload.template.spec;
    for (const volume of pod.volumes ?? []) {
      if (volume.configMap && !find(objects, 'ConfigMap', volume.configMap.name)) {
        findings.push({
          check: 'references',
          object: workload.id,
          message: `volume ${volume.name} refers to ConfigMap "${volume.configMap.name}", which the manifests do not define`,
        });
      }
      if (volume.secret && !find(objects, 'Secret', volume.secret.secretName)) {
        findings.push({
          check: 'references',
          object: workload.id,
          message: `volume ${volume.name} refers to Secret "${volume.secret.secretName}", which the manifests do not define`,
        });
      }
    }
    for (const container of allContainers(pod)) {
      for (const mount of container.volumeMounts ?? []) {
        if (
          !pod.volumes?.some((v) => v.name === mount.name) &&
          !workload.claimTemplates.includes(mount.name)
        ) {
          findings.push({
            check: 'references',
            object: `${workload.id} ${container.name}`,
            message: `mounts volume ${mount.name}, which the pod does not define`,
          });
        }
      }
    }
    if (pod.serviceAccountName && !find(objects, 'ServiceAccount', pod.serviceAccountName)) {
      findings.push({
        check: 'references',
        object: workload.id,
        message: `runs as ServiceAccount "${pod.serviceAccountName}", which the manifests do not define`,
      });
    }
  }
  for (const service of objects.filter((o) => o.kind === 'Service')) {
    const s = spec<{
      selector?: Record<string, string>;
      ports?: { port: number; targetPort?: number | string }[];
    }>(service);
    if (!s.selector) continue;
    const selected = loads.filter((w) => selectorMatches({ matchLabels: s.selector }, w.labels));
    if (selected.length === 0) {
      findings.push({ check: 'references', object: id(service), message: 'selects no pod' });
      continue;
    }
    for (const servicePort of s.ports ?? []) {
      const target = servicePort.targetPort ?? servicePort.port;
      const resolves = selected.some((w) =>
        allContainers(w.template.spec).some((c) => {
          const port = resolvePort(c, target);
          return port !== undefined && (c.ports ?? []).some((p) => p.containerPort === port);
        }),
      );
      if (!resolves) {
        findings.push({
          check: 'ports',
          object: id(service),
          message: `targetPort ${String(target)} matches no container port of the pods it selects`,
        });
      }
    }
  }
  for (const ingress of objects.filter((o) => o.kind === 'Ingress')) {
    const rules = spec<{
      rules?: {
        http?: {
          paths?: { backend: { service?: { name: string; port: { name?: string; number?: number } } } }[];
        };
      }[];
    }>(ingress).rules;
    for (const path of (rules ?? []).flatMap((rule) => rule.http?.paths ?? [])) {
      const backend = path.backend.service;
      if (!backend) continue;
      const service = find(objects, 'Service', backend.name);
      const ports =
        spec<{ ports?: { name?: string; port: number }[] }>(service ?? ({} as K8sObject)).ports ?? [];
      if (!service || !ports.some((p) => p.name === backend.port.name || p.port === backend.port.number)) {
        findings.push({
          check: 'references',
          object: id(ingress),
          message: `backend ${backend.name}:${backend.port.name ?? backend.port.number} is not a port of a Service here`,
        });
      }
    }
  }
}

/** Expands `for x in a b c; do ... $x ...; done` so the script's lines name each value. */
function expandShellLoops(script: string): string {
  return script.replace(
    /for\s+(\w+)\s+in\s+([^;\n]+?)\s*;\s*do([\s\S]*?)done/g,
    (_all, variable: string, list: string, body: string) =>
      list
        .trim()
        .split(/\s+/)
        .map((value) => body.replace(new RegExp(`\\$\\{?${variable}\\}?`, 'g'), value))
        .join('\n'),
  );
}

function checkMigration(
  objects: K8sObject[],
  loads: Workload[],
  ctx: CheckContext,
  findings: Finding[],
): void {
  const jobs = loads.filter((w) => w.object.kind === 'Job');
  const scripts = jobs.map((job) => ({
    job,
    text: job.template.spec.containers.map((c) => expandShellLoops(commandLine(c))).join('\n'),
  }));
  const runner = scripts.find(({ text }) => ctx.apps.some((app) => text.includes(app.migrate)));
  if (!runner) {
    findings.push({ check: 'migration', object: 'Job/*', message: "no Job runs the apps' migrate.mjs" });
    return;
  }
  const positions = ctx.apps.map((app) => ({ app, at: runner.text.indexOf(app.migrate) }));
  for (const { app, at } of positions) {
    if (at < 0) {
      findings.push({ check: 'migration', object: runner.job.id, message: `does not run ${app.migrate}` });
    }
  }
  const order = positions.filter((p) => p.at >= 0).sort((a, b) => a.at - b.at);
  const expected = positions.filter((p) => p.at >= 0);
  if (order.map((p) => p.app.name).join() !== expected.map((p) => p.app.name).join()) {
    findings.push({
      check: 'migration',
      object: runner.job.id,
      message: `runs the migrations in the order ${order.map((p) => p.app.name).join(', ')}, not ${expected
        .map((p) => p.app.name)
        .join(', ')}`,
    });
  }
  const job = runner.job;
  for (const container of job.template.spec.containers) {
    const where = `${job.id} ${container.name}`;
    const env = resolveEnv(container, objects, where, findings);
    checkConfig(ctx.migrationConfigClass, 'migrate', container, env, where, findings);
  }
  // Everything the Job needs carries the phase label, so `kubectl apply -l` of that phase can run it alone.
  const pod = job.template.spec;
  const needs: [string, string][] = [
    ...allContainers(pod).flatMap((c) => [
      ...(c.envFrom ?? []).flatMap((f): [string, string][] => [
        ...(f.configMapRef ? [['ConfigMap', f.configMapRef.name] as [string, string]] : []),
        ...(f.secretRef ? [['Secret', f.secretRef.name] as [string, string]] : []),
      ]),
      ...(c.env ?? []).flatMap((e): [string, string][] => [
        ...(e.valueFrom?.configMapKeyRef
          ? [['ConfigMap', e.valueFrom.configMapKeyRef.name] as [string, string]]
          : []),
        ...(e.valueFrom?.secretKeyRef ? [['Secret', e.valueFrom.secretKeyRef.name] as [string, string]] : []),
      ]),
    ]),
    ...(pod.serviceAccountName ? [['ServiceAccount', pod.serviceAccountName] as [string, string]] : []),
  ];
  for (const object of [job.object, ...needs.map(([kind, name]) => find(objects, kind, name))]) {
    if (object && !object.metadata.labels?.[MIGRATE_PHASE_LABEL]) {
      findings.push({
        check: 'migration',
        object: id(object),
        message: `the migration Job needs it before the rollout but it lacks the label ${MIGRATE_PHASE_LABEL}`,
      });
    }
  }
}

interface PolicyPeer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string };
}
interface PolicySpec {
  podSelector: Selector;
  policyTypes?: string[];
  ingress?: { from?: PolicyPeer[]; ports?: { port?: number | string }[] }[];
}

/** Whether a policy port names the workload's /metrics port (by name, or by its number). */
function isMetricsPort(workload: Workload, port: number | string | undefined): boolean {
  if (port === METRICS_PORT_NAME) return true;
  return allContainers(workload.template.spec).some((c) =>
    (c.ports ?? []).some((p) => p.name === METRICS_PORT_NAME && p.containerPort === port),
  );
}

function checkNetwork(objects: K8sObject[], loads: Workload[], ctx: CheckContext, findings: Finding[]): void {
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const denyAll = policies.some((policy) => {
    const s = spec<PolicySpec>(policy);
    return isEmptySelector(s.podSelector) && (s.policyTypes ?? []).includes('Ingress') && !s.ingress?.length;
  });
  if (!denyAll) {
    findings.push({
      check: 'network',
      object: 'NetworkPolicy/*',
      message: 'no default-deny ingress policy (podSelector {}, policyTypes [Ingress], no rules)',
    });
  }
  const appOf = (w: Workload) =>
    ctx.apps.find((app) => allContainers(w.template.spec).some((c) => commandLine(c).includes(app.entry)));
  const internal = (w: Workload) => appOf(w) !== undefined || w.object.kind === 'Job';
  for (const workload of loads) {
    const app = appOf(workload);
    const isPublic = app !== undefined && ctx.publicApps.includes(app.name);
    for (const policy of policies) {
      const s = spec<PolicySpec>(policy);
      if (!selectorMatches(s.podSelector, workload.labels) && !isEmptySelector(s.podSelector)) continue;
      for (const rule of s.ingress ?? []) {
        const peers = rule.from ?? [];
        const open =
          peers.length === 0 ||
          peers.some(
            (p) =>
              p.ipBlock || (p.namespaceSelector && (isEmptySelector(p.namespaceSelector) || !p.podSelector)),
          );
        const ports = rule.ports ?? [];
        const metricsOnly = ports.length > 0 && ports.every((p) => isMetricsPort(workload, p.port));
        // A scraper in any namespace of the cluster: namespace selectors only, no address block from outside.
        const inCluster = peers.length > 0 && peers.every((p) => p.namespaceSelector && !p.ipBlock);
        if (metricsOnly && inCluster) continue;
        if (open && isPublic && (!ports.length || ports.some((p) => isMetricsPort(workload, p.port)))) {
          findings.push({
            check: 'network',
            object: id(policy),
            message: `lets traffic from outside reach the /metrics port of ${workload.id}; only in-cluster scrapers may`,
          });
          continue;
        }
        if (open) {
          if (!isPublic) {
            findings.push({
              check: 'network',
              object: id(policy),
              message: `lets traffic from outside reach ${workload.id}; only ${ctx.publicApps.join(', ')} may be reachable`,
            });
          }
          continue;
        }
        for (const peer of peers) {
          // A clustered workload's replicas reach each other (NATS routes); nothing else of the deployment may.
          const strangers = loads.filter(
            (w) => selectorMatches(peer.podSelector, w.labels) && !internal(w) && w !== workload,
          );
          const noneSelected = !loads.some((w) => selectorMatches(peer.podSelector, w.labels));
          if (peer.namespaceSelector || strangers.length || noneSelected) {
            findings.push({
              check: 'network',
              object: id(policy),
              message: `lets ${
                strangers.map((w) => w.id).join(', ') || 'pods not of this deployment'
              } reach ${workload.id}; only the apps, the migration Job and its own replicas may`,
            });
          }
        }
      }
    }
  }
}

function checkScaling(objects: K8sObject[], loads: Workload[], ctx: CheckContext, findings: Finding[]): void {
  const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
  const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget');
  for (const hpa of hpas) {
    const target = spec<{ scaleTargetRef: { kind: string; name: string } }>(hpa).scaleTargetRef;
    const workload = find(objects, target.kind, target.name);
    if (!workload) {
      findings.push({
        check: 'scaling',
        object: id(hpa),
        message: `scales ${target.kind}/${target.name}, not here`,
      });
    } else if (spec<{ replicas?: number }>(workload).replicas !== undefined) {
      findings.push({
        check: 'scaling',
        object: id(workload),
        message: 'sets replicas although an HPA owns the count (every apply would reset it)',
      });
    }
  }
  for (const name of ctx.publicApps) {
    const deployment = loads.find(
      (w) =>
        w.object.kind === 'Deployment' &&
        allContainers(w.template.spec).some((c) => commandLine(c).includes(`dist/apps/${name}/server.mjs`)),
    );
    if (!deployment) {
      findings.push({ check: 'scaling', object: `Deployment/${name}`, message: 'no Deployment runs it' });
      continue;
    }
    const scaled = hpas.some((hpa) => {
      const t = spec<{ scaleTargetRef: { kind: string; name: string } }>(hpa).scaleTargetRef;
      return t.kind === 'Deployment' && t.name === deployment.object.metadata.name;
    });
    if (!scaled) {
      findings.push({ check: 'scaling', object: deployment.id, message: 'no HorizontalPodAutoscaler' });
    }
    const budget = pdbs.some((pdb) =>
      selectorMatches(spec<{ selector: Selector }>(pdb).selector, deployment.labels),
    );
    if (!budget) {
      findings.push({ check: 'scaling', object: deployment.id, message: 'no PodDisruptionBudget' });
    }
  }
}

function checkNats(objects: K8sObject[], loads: Workload[], findings: Finding[]): void {
  for (const workload of loads) {
    for (const container of workload.template.spec.containers) {
      const image = container.image ?? '';
      if (!/(^|\/)nats:/.test(image)) continue;
      const where = `${workload.id} ${container.name}`;
      const version = /:v?(\d+)\.(\d+)/.exec(image);
      const [major, minor] = version ? [Number(version[1]), Number(version[2])] : [0, 0];
      if (major < NATS_MIN_VERSION[0] || (major === NATS_MIN_VERSION[0] && minor < NATS_MIN_VERSION[1])) {
        findings.push({
          check: 'nats',
          object: where,
          message: `image ${image}: JetStream needs nats-server >= ${NATS_MIN_VERSION.join('.')} for sync_interval: always`,
        });
      }
      if (workload.object.kind !== 'StatefulSet' || workload.claimTemplates.length === 0) {
        findings.push({
          check: 'nats',
          object: workload.id,
          message: 'NATS is not a StatefulSet with a volume claim',
        });
      }
      const configs = (workload.template.spec.volumes ?? [])
        .filter((v) => v.configMap && container.volumeMounts?.some((m) => m.name === v.name))
        .map((v) => find(objects, 'ConfigMap', v.configMap?.name ?? ''))
        .flatMap((cm) => Object.values((cm?.data ?? {}) as Record<string, string>));
      const text = configs.join('\n');
      if (!/^\s*sync_interval\s*:\s*always\b/m.test(text)) {
        findings.push({
          check: 'nats',
          object: where,
          message: 'the mounted config lacks `sync_interval: always`',
        });
      }
      const storeDir = /^\s*store_dir\s*:\s*"?([^"\s]+)"?/m.exec(text)?.[1];
      const onClaim = (container.volumeMounts ?? []).some(
        (m) => workload.claimTemplates.includes(m.name) && storeDir?.startsWith(m.mountPath),
      );
      if (!onClaim) {
        findings.push({
          check: 'nats',
          object: where,
          message: `JetStream store_dir ${storeDir ?? '(unset)'} is not on a PersistentVolumeClaim`,
        });
      }
    }
  }
}

/** Every rule above over one rendered overlay (schemas are checked apart: `validateSchemas`). */
export function checkManifests(objects: K8sObject[], ctx: CheckContext): Finding[] {
  const findings: Finding[] = [];
  const loads = workloads(objects);
  checkReferences(objects, loads, findings);
  for (const app of ctx.apps) {
    const runners = loads.flatMap((workload) =>
      workload.template.spec.containers
        .filter((container) => commandLine(container).includes(app.entry))
        .map((container) => ({ workload, container })),
    );
    if (!runners.some(({ workload }) => workload.object.kind === 'Deployment')) {
      findings.push({
        check: 'config',
        object: `Deployment/${app.name}`,
        message: `no Deployment runs ${app.entry}`,
      });
    }
    for (const { workload, container } of runners) {
      checkAppContainer(app, workload, container, objects, ctx, findings);
    }
  }
  for (const workload of loads) checkSecurity(workload, findings);
  checkMigration(objects, loads, ctx, findings);
  checkNetwork(objects, loads, ctx, findings);
  checkScaling(objects, loads, ctx, findings);
  checkNats(objects, loads, findings);
  return findings;
}

/** One line per finding, for assertion messages. */
export function formatFindings(findings: Finding[]): string {
  return findings.map((f) => `[${f.check}] ${f.object}: ${f.message}`).join('\n');
}
