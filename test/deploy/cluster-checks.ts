import {
  type K8sObject,
  type Finding,
  type CheckContext,
  METRICS_PORT_NAME,
  NATS_MIN_VERSION,
  type Selector,
  type Workload,
  id,
  spec,
  allContainers,
  selectorMatches,
  isEmptySelector,
  find,
} from './manifest-model.js';
import { commandLine } from './workload-checks.js';
import { type PolicySpec } from './reference-checks.js';

/** Whether a policy port names the workload's /metrics port (by name, or by its number). */
export function isMetricsPort(workload: Workload, port: number | string | undefined): boolean {
  if (port === METRICS_PORT_NAME) return true;
  return allContainers(workload.template.spec).some((c) =>
    (c.ports ?? []).some((p) => p.name === METRICS_PORT_NAME && p.containerPort === port),
  );
}

export function checkNetwork(
  objects: K8sObject[],
  loads: Workload[],
  ctx: CheckContext,
  findings: Finding[],
): void {
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

export function checkScaling(
  objects: K8sObject[],
  loads: Workload[],
  ctx: CheckContext,
  findings: Finding[],
): void {
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

export function checkNats(objects: K8sObject[], loads: Workload[], findings: Finding[]): void {
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
