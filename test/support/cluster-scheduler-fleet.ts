import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EntityManager } from 'typeorm';
import { Subjects, type CommandSubject, type HostChangedEvent, type QuerySubject } from '@app/contracts';
import type { CatalogRepository } from '../../apps/cluster-scheduler/src/catalog/catalog.repository.js';
import { FleetLoader } from '../../apps/cluster-scheduler/src/catalog/fleet.loader.js';
import { ClusterSchedulerConfig } from '../../apps/cluster-scheduler/src/cluster-scheduler.config.js';
import { CordonHostHandler } from '../../apps/cluster-scheduler/src/fleet/cordon-host/cordon-host.handler.js';
import { DrainHostHandler } from '../../apps/cluster-scheduler/src/fleet/drain-host/drain-host.handler.js';
import { ExpireDrainsHandler } from '../../apps/cluster-scheduler/src/fleet/expire-drains/expire-drains.handler.js';
import { FleetCapacityHandler } from '../../apps/cluster-scheduler/src/fleet/fleet-capacity/fleet-capacity.handler.js';
import { FleetViewsRepository } from '../../apps/cluster-scheduler/src/fleet/fleet-views.repository.js';
import { GetHostHandler } from '../../apps/cluster-scheduler/src/fleet/get-host/get-host.handler.js';
import { HostChanges } from '../../apps/cluster-scheduler/src/fleet/host-changes.js';
import { HostsRepository } from '../../apps/cluster-scheduler/src/fleet/hosts.repository.js';
import { ListHostsHandler } from '../../apps/cluster-scheduler/src/fleet/list-hosts/list-hosts.handler.js';
import { RegisterHostHandler } from '../../apps/cluster-scheduler/src/fleet/register-host/register-host.handler.js';
import { RemoveHostHandler } from '../../apps/cluster-scheduler/src/fleet/remove-host/remove-host.handler.js';
import { ReportHostHealthHandler } from '../../apps/cluster-scheduler/src/fleet/report-host-health/report-host-health.handler.js';
import { UncordonHostHandler } from '../../apps/cluster-scheduler/src/fleet/uncordon-host/uncordon-host.handler.js';
import type { PlacementRepository } from '../../apps/cluster-scheduler/src/placement/placement.repository.js';
import type { HandlerHarness } from './handler-harness.js';

/** The fleet's commands and queries, taking the placement ledger's lock as the app wires them. */
export function registerFleet(
  harness: HandlerHarness,
  config: ClusterSchedulerConfig,
  catalog: CatalogRepository,
  placement: PlacementRepository,
): void {
  const ledger = { lock: (manager: EntityManager) => placement.lockLedger(manager) };
  const hosts = new HostsRepository(harness.dataSource);
  const views = new FleetViewsRepository(harness.dataSource);
  const changes = new HostChanges(hosts, ledger);
  harness.register(
    new RegisterHostHandler(changes, hosts, catalog),
    new CordonHostHandler(changes),
    new UncordonHostHandler(changes),
    new DrainHostHandler(changes, config),
    new RemoveHostHandler(changes, hosts),
    new ReportHostHealthHandler(changes),
    new ExpireDrainsHandler(hosts, ledger),
    new ListHostsHandler(views),
    new GetHostHandler(views),
    new FleetCapacityHandler(views),
  );
}

/** The default fleet (FLEET_FILE's default), or `fleet` written to a file of its own and loaded from there. */
export async function loadFleet(config: ClusterSchedulerConfig, catalog: CatalogRepository, fleet?: object) {
  if (!fleet) {
    await new FleetLoader(config, catalog).load();
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'scheduler-fleet-'));
  try {
    const file = join(dir, 'fleet.json');
    writeFileSync(file, JSON.stringify(fleet));
    await new FleetLoader(Object.assign(new ClusterSchedulerConfig(), { FLEET_FILE: file }), catalog).load();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The harness's default command time. */
export const FLEET_NOW = Date.parse('2026-03-01T12:00:00.000Z');

/**
 * What the fleet's medium tests do on a scheduler harness: commands dated `at`, queries, pods placed, the
 * host-changed events of the outbox, and the reset between cases (pods released, hosts back to the file's, READY
 * and healthy, the outbox emptied).
 */
export class FleetKit {
  private pods = 0;

  constructor(private readonly harness: HandlerHarness) {}

  send<S extends CommandSubject>(subject: S, payload: object, at = FLEET_NOW) {
    return this.harness.send(subject, payload, { issuedAt: new Date(at).toISOString() });
  }

  query<S extends QuerySubject>(subject: S, payload: object) {
    return this.harness.query(subject, payload);
  }

  /** A new pod of `gpus` L4s (or of the type `extra` names) for user-1, placed by the scheduler. */
  reserve(gpus: number, extra: object = {}) {
    const podId = `pod-${++this.pods}`;
    const pod = { podId, ownerId: 'user-1', gpuTypeId: 'NVIDIA L4', gpuCount: gpus, ports: [], ...extra };
    return this.send(Subjects.placement.reserve, pod);
  }

  host(hostId: string) {
    return this.query(Subjects.fleet.getHost, { hostId });
  }

  async hostEvents(): Promise<HostChangedEvent[]> {
    const events = await this.harness.events(Subjects.fleet.hostChanged);
    return events.map((e) => e.payload as HostChangedEvent);
  }

  async reset(): Promise<void> {
    const db = this.harness.dataSource;
    const rows: { pod_id: string }[] = await db.query('SELECT pod_id FROM cluster_scheduler.reservations');
    for (const { pod_id } of rows) await this.harness.send(Subjects.placement.release, { podId: pod_id });
    await db.query("DELETE FROM cluster_scheduler.hosts WHERE source <> 'file'");
    await db.query(
      `UPDATE cluster_scheduler.hosts SET scheduling_state = 'READY', scheduling_by = 'file', scheduling_reason = NULL,
              healthy = true, health_code = NULL, health_reason = NULL, health_source = NULL,
              health_gpu_index = NULL, health_since = NULL, drain_deadline = NULL, drain_expired_at = NULL`,
    );
    await db.query('DELETE FROM cluster_scheduler.outbox');
  }
}
