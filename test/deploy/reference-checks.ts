import {
  type K8sObject,
  type Finding,
  type CheckContext,
  MIGRATE_PHASE_LABEL,
  type Selector,
  type Workload,
  id,
  spec,
  allContainers,
  selectorMatches,
  find,
  resolveEnv,
} from './manifest-model.js';
import { checkConfig, commandLine, resolvePort } from './workload-checks.js';

export function checkReferences(objects: K8sObject[], loads: Workload[], findings: Finding[]): void {
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

export function checkMigration(
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

export interface PolicyPeer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string };
}
export interface PolicySpec {
  podSelector: Selector;
  policyTypes?: string[];
  ingress?: { from?: PolicyPeer[]; ports?: { port?: number | string }[] }[];
}
