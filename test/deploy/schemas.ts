import type { Finding, K8sObject } from './manifest-checks.js';

/**
 * Validation against the Kubernetes OpenAPI schemas, offline: kubernetes-models (pinned in package.json) ships, for
 * every built-in kind of one Kubernetes release (4.5.x: v1.33), the JSON schema compiled by ajv into a validate
 * function. Like kubeconform without -strict, it checks types, enums, formats and required fields; fields it does
 * not know are reported by `unknownFields` (./strict.ts).
 */
export const SCHEMA_KUBERNETES_VERSION = '1.33';

interface ModelError {
  instancePath?: string;
  message?: string;
  params?: { allowedValues?: unknown[]; missingProperty?: string };
}
type ModelClass = new (data: object) => { validate(): void };

/**
 * The package holding a group's models: the built-in kinds in kubernetes-models, the prometheus-operator's
 * (PodMonitor, PrometheusRule: deploy/components/monitoring) in @kubernetes-models/prometheus-operator, from the
 * same project and of the same generation (pinned in package.json).
 */
export function modelPackage(group: string): string {
  return group === 'monitoring.coreos.com' ? '@kubernetes-models/prometheus-operator' : 'kubernetes-models';
}

/** `apps/v1` + `Deployment` → the model class, or undefined for a kind the package does not have. */
async function modelFor(apiVersion: string, kind: string): Promise<ModelClass | undefined> {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (!/^[a-z0-9.]*$/.test(group) || !/^v\d+\w*$/.test(version) || !/^[A-Z]\w+$/.test(kind)) return undefined;
  const specifier = `${modelPackage(group)}/${group ? `${group}/` : ''}${version}/${kind}`;
  try {
    const module = (await import(specifier)) as Record<string, unknown>;
    return module[kind] as ModelClass | undefined;
  } catch {
    return undefined;
  }
}

function describe(error: ModelError): string {
  const path = error.instancePath || '/';
  const extra = error.params?.allowedValues ? ` (${error.params.allowedValues.map(String).join(', ')})` : '';
  return `${path} ${error.message ?? 'is invalid'}${extra}`;
}

/**
 * kustomize folds long base64 values of a Secret over several lines; the API server's decoder (Go's base64) skips
 * line breaks, the schema's `format: byte` does not.
 */
function withoutBase64Breaks(object: K8sObject): K8sObject {
  if (object.kind !== 'Secret' && object.kind !== 'ConfigMap') return object;
  const field = object.kind === 'Secret' ? 'data' : 'binaryData';
  const data = object[field] as Record<string, unknown> | undefined;
  if (!data) return object;
  const joined = Object.fromEntries(
    Object.entries(data).map(([key, value]) => [
      key,
      typeof value === 'string' ? value.replace(/[\r\n]/g, '') : value,
    ]),
  );
  return { ...object, [field]: joined };
}

export async function validateSchemas(objects: K8sObject[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const object of objects) {
    const where = `${object.kind}/${object.metadata?.name}`;
    const Model = await modelFor(String(object.apiVersion), String(object.kind));
    if (!Model) {
      findings.push({
        check: 'schema',
        object: where,
        message: `no Kubernetes ${SCHEMA_KUBERNETES_VERSION} schema for ${object.apiVersion} ${object.kind}`,
      });
      continue;
    }
    try {
      new Model(withoutBase64Breaks(object)).validate();
    } catch (error) {
      const errors = (error as { errors?: ModelError[] }).errors;
      for (const message of errors?.length ? errors.map(describe) : [(error as Error).message]) {
        findings.push({ check: 'schema', object: where, message });
      }
    }
  }
  return findings;
}
