import { getMetadataStorage } from 'class-validator';

/** The manifest checks' view of rendered objects (manifest-checks.ts), and the helpers every rule shares. */

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
export const NATS_MIN_VERSION = [2, 10] as const;

// --- small typed views of the fields we read ------------------------------------------------------------------

export interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}
export interface Probe {
  httpGet?: { path?: string; port: number | string };
}
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    fieldRef?: { fieldPath: string };
  };
}
export interface EnvFrom {
  prefix?: string;
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
}
export interface Container {
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
export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  privileged?: boolean;
  capabilities?: { drop?: string[] };
  seccompProfile?: { type: string };
}
export interface Volume {
  name: string;
  emptyDir?: object;
  configMap?: { name: string };
  secret?: { secretName: string };
  persistentVolumeClaim?: { claimName: string };
}
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  securityContext?: SecurityContext;
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
}
export interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec: PodSpec;
}

/** A Deployment, StatefulSet, Job or DaemonSet, with its pod template. */
export interface Workload {
  object: K8sObject;
  id: string;
  template: PodTemplate;
  labels: Record<string, string>;
  claimTemplates: string[];
}

export const id = (object: K8sObject) => `${object.kind}/${object.metadata?.name}`;
export const spec = <T>(object: K8sObject) => (object.spec ?? {}) as T;

export function workloads(objects: K8sObject[]): Workload[] {
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

export function allContainers(pod: PodSpec): Container[] {
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

export const isEmptySelector = (selector: Selector | undefined) =>
  !!selector &&
  Object.keys(selector.matchLabels ?? {}).length === 0 &&
  (selector.matchExpressions ?? []).length === 0;

export function find(objects: K8sObject[], kind: string, name: string): K8sObject | undefined {
  return objects.find((object) => object.kind === kind && object.metadata?.name === name);
}

export function secretData(secret: K8sObject): Record<string, string> {
  const data = Object.fromEntries(
    Object.entries((secret.data ?? {}) as Record<string, string>).map(([key, value]) => [
      key,
      Buffer.from(value, 'base64').toString('utf8'),
    ]),
  );
  return { ...data, ...((secret.stringData ?? {}) as Record<string, string>) };
}

// --- environment -----------------------------------------------------------------------------------------------

export interface ResolvedEnv {
  values: Record<string, string>;
  /** Variables whose value is only known at run time (fieldRef, resourceFieldRef). */
  runtime: Set<string>;
}

/** The environment a container gets, from env and envFrom, reporting references to objects that do not exist. */
export function resolveEnv(
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
