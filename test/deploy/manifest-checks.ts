import { type K8sObject, type Finding, type CheckContext, workloads } from './manifest-model.js';
import { commandLine, checkAppContainer, checkSecurity } from './workload-checks.js';
import { checkReferences, checkMigration } from './reference-checks.js';
import { checkNetwork, checkScaling, checkNats } from './cluster-checks.js';

/**
 * Checks of rendered Kubernetes manifests against what the apps really do: their config classes (required
 * variables, valid values, HTTP_PORT), their health routes, their entry points, and the deployment rules of
 * deploy/README.md. Pure functions over parsed objects, so a test can feed them a broken manifest. The rules sit
 * in workload-checks.ts (each app's containers), reference-checks.ts (what objects name, the migration Job) and
 * cluster-checks.ts (network policies, scaling, NATS); the objects they read in manifest-model.ts.
 */
export * from './manifest-model.js';

/** Every rule over one rendered overlay (schemas are checked apart: `validateSchemas`). */
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
