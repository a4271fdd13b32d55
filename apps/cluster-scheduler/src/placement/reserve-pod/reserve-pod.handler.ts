import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  REGION_CODES,
  Subjects,
  podFieldNames,
  priorityRank,
  type PlacementView,
  type ReservePodCommand,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { CatalogChecks } from '../../catalog/catalog.checks.js';
import { CatalogRepository } from '../../catalog/catalog.repository.js';
import { isSchedulable, mayKeepReservation, unschedulableSentence } from '../../fleet/host-rules.js';
import { ClusterMembership } from '../cluster-membership.js';
import { PlacementApplier } from '../placement.applier.js';
import { toPlacedPodView, toPlacementView } from '../placement.mapper.js';
import { PlacementRepository } from '../placement.repository.js';

/** Whether a reservation maps exactly the exposed ports `ports` (its mappings are keyed by port spec). */
function samePorts(mappings: Record<string, number>, ports: readonly string[]): boolean {
  const wanted = new Set(ports);
  const held = Object.keys(mappings);
  return held.length === wanted.size && held.every((spec) => wanted.has(spec));
}

function invalid(error: string): DomainError {
  return new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [error]);
}

/**
 * `placement.cmd.reserve` (pod-lifecycle, for standalone pods and to resume a stopped pod on its host): one pod's
 * GPUs (or CPU slot) and public ports. Idempotent per pod: a pod that holds a reservation gets it back.
 */
@Injectable()
export class ReservePodHandler {
  constructor(
    private readonly repository: PlacementRepository,
    private readonly placement: PlacementApplier,
    private readonly checks: CatalogChecks,
    private readonly clusters: ClusterMembership,
    private readonly catalog: CatalogRepository,
  ) {}

  /** The placement with the catalog's prices for it, which the pod's usage is metered at (ADR 21). */
  @CommandHandler(Subjects.placement.reserve)
  async handle(ctx: CommandContext<ReservePodCommand>): Promise<PlacementView> {
    const view = await this.reserve(ctx);
    const { gpuTypeId, gpuCount, hostId } = view;
    const cpuTypeId = ctx.payload.cpuTypeId ?? null;
    return {
      ...view,
      rates: await this.catalog.rates({ gpuTypeId, gpuCount, cpuTypeId, hostId }, ctx.manager),
    };
  }

  private async reserve(ctx: CommandContext<ReservePodCommand>): Promise<PlacementView> {
    const { payload, manager } = ctx;
    // The ledger first, then what the pod holds: a release committed by another transaction (another replica's
    // lane) after this read and before our processed row would otherwise be ordered before us by a rebuild
    // (processed_at) although we answered from the reservation it freed, and the rebuild would place the pod again.
    await this.repository.lockLedger(manager);
    // The reads that depend on nothing but the command go together, one round trip (the connection pipelines them;
    // Postgres runs them in order, after the lock): the reservation held, the GPU type, the data centers named, the
    // cluster the pod is a member of. Checked below in the order the refusals have always been given.
    const gpuTypeId = payload.gpuTypeId ?? null;
    const ports = [...new Set(payload.ports)];
    const dataCenterIds = [...new Set(payload.dataCenterIds ?? [])];
    const regions = payload.regions ?? [];
    // With them, what the placement reads first (the ledger, the snapshot) for a new pod, as asked: `apply` uses
    // it unless the pod holds a reservation (released first, or placed on its host) or mounts a volume.
    const prefetched =
      payload.networkVolumeId || payload.gpuCount >= 2 ** 31
        ? undefined
        : this.placement.prefetch(manager, {
            ownerId: payload.ownerId,
            podIds: [payload.podId],
            gpuTypeId,
            gpusPerPod: payload.gpuCount,
            cpuTypeId: payload.cpuTypeId ?? null,
            ports,
            dataCenterIds,
            regions,
            hostId: payload.hostId ?? null,
          });
    const [held, gpuType, knownDataCenters, clusterId] = await Promise.all([
      this.repository.findReservation(payload.podId, manager),
      gpuTypeId !== null ? this.catalog.findGpuType(gpuTypeId, manager) : null,
      payload.dataCenterIds?.length ? this.catalog.dataCenters(manager) : [],
      this.clusters.clusterOfMember(payload.podId, manager),
    ]);
    const heldOn = held ? await this.catalog.findHost(held.hostId, manager) : null;
    if (heldOn && !mayKeepReservation(heldOn)) {
      // Its pods went ERROR with the host (HOST_UNHEALTHY, HOST_GONE); it starts again once the host is back.
      throw new DomainError(ErrorCode.CapacityUnavailable, unschedulableSentence(heldOn));
    }
    if (held && !(payload.reassignPorts && !samePorts(held.portMappings, payload.ports))) {
      // Kept for this reserve (a resume after a stop whose release has not been applied yet): dated now, so that
      // release (only reservations made by the stop) leaves the resumed pod its GPUs and ports.
      await this.repository.renewReservation(payload.podId, ctx.now, manager);
      const hosts = await this.repository.hostAddresses([held.hostId], manager);
      return toPlacementView(held, hosts.get(held.hostId)?.publicIp ?? '');
    }
    if (held) {
      // Released in this transaction: the host's row stays locked until the new ports are committed, so no other
      // placement takes the GPUs in between, and a refusal below (no free ports) rolls the release back.
      await this.repository.release(manager, payload.podId);
    }
    const hostId = held?.hostId ?? payload.hostId;

    // Refusals name the fields of the request's own surface (v1 or v2), not the command's.
    const field = podFieldNames(payload.vocabulary);
    if (gpuTypeId !== null) {
      const known = this.checks.knownGpuType(field('gpuTypeId'), gpuTypeId, gpuType);
      if (payload.gpuCount < 1) throw invalid(`${field('gpuCount')} must not be less than 1 for a GPU pod`);
      this.checks.gpuCount(field('gpuCount'), payload.gpuCount, known);
    } else if (payload.gpuCount > 0) {
      throw invalid(`${field('gpuTypeId')} must be set when ${field('gpuCount')} is greater than 0`);
    }
    if (payload.cpuTypeId) await this.checks.cpuType(field('cpuFlavorId'), payload.cpuTypeId, manager);
    this.checks.knownDataCenters(
      (i) => field('dataCenterIds', i),
      payload.dataCenterIds ?? [],
      new Set(knownDataCenters.map((dc) => dc.id)),
    );
    const badRegion = regions.find((r) => !(REGION_CODES as readonly string[]).includes(r));
    if (badRegion) {
      throw invalid(
        `regions must hold region codes among ${REGION_CODES.join(', ')}; "${badRegion}" is not one`,
      );
    }
    if (hostId) {
      const host = await this.catalog.findHost(hostId, manager);
      if (!host) throw invalid(`hostId must be a host of the fleet; "${hostId}" is not one`);
      // Resuming where the pod's data is: on a host cordoned, draining, unhealthy or gone, say which and why.
      if (!isSchedulable(host)) {
        throw new DomainError(ErrorCode.CapacityUnavailable, unschedulableSentence(host));
      }
    }
    const volume = payload.networkVolumeId
      ? await this.placement.mountableVolume(
          field('networkVolumeId'),
          payload.networkVolumeId,
          payload.ownerId,
          manager,
        )
      : null;
    const what =
      gpuTypeId === null
        ? `a CPU pod${payload.cpuTypeId ? ` of type ${payload.cpuTypeId}` : ''}`
        : `${payload.gpuCount} × ${gpuTypeId}`;
    const { applied } = await this.placement.apply(
      manager,
      {
        ownerId: payload.ownerId,
        clusterId,
        podIds: [payload.podId],
        gpuTypeId,
        gpusPerPod: payload.gpuCount,
        cpuTypeId: payload.cpuTypeId ?? null,
        ports,
        dataCenterIds,
        regions,
        hostId: hostId ?? null,
        volume,
        createdAt: ctx.now,
        overlay: false,
        priority: priorityRank(payload.priority),
        interruptible: payload.interruptible ?? false,
        asker: { ctx, workloadId: payload.podId },
        noCapacity: (considered) =>
          new DomainError(
            ErrorCode.CapacityUnavailable,
            hostId
              ? `host ${hostId} does not have ${what} free now${ports.length ? ` (with ${ports.length} public ports)` : ''}`
              : `no capacity for ${what}; data centers considered: ${considered.length ? considered.join(', ') : 'none'}`,
          ),
      },
      undefined,
      held ? undefined : prefetched,
    );
    return toPlacedPodView(applied.dataCenterId, applied.pods[0], {
      gpuTypeId,
      gpuCount: gpuTypeId === null ? 0 : payload.gpuCount,
    });
  }
}
