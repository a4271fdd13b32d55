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
  type UsageRates,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { CatalogChecks } from '../../catalog/catalog.checks.js';
import { CatalogRepository } from '../../catalog/catalog.repository.js';
import { isSchedulable, mayKeepReservation, unschedulableSentence } from '../../fleet/host-rules.js';
import { PlacementApplier, type AppliedPlacement, type PlacementOrder } from '../placement.applier.js';
import { toPlacedPodView, toPlacementView } from '../placement.mapper.js';
import { PlacementRepository } from '../placement.repository.js';
import { BatchPlacement } from './batch-placement.js';

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
 * GPUs (or CPU slot) and public ports. Idempotent per pod: a pod that holds a reservation gets it back. The reserves
 * of a lane's batch read once for all of them and plan in order from those reads (BatchPlacement).
 */
@Injectable()
export class ReservePodHandler {
  constructor(
    private readonly repository: PlacementRepository,
    private readonly placement: PlacementApplier,
    private readonly batches: BatchPlacement,
    private readonly checks: CatalogChecks,
    private readonly catalog: CatalogRepository,
  ) {}

  /** The placement with the catalog's prices for it, which the pod's usage is metered at (ADR 21). */
  @CommandHandler(Subjects.placement.reserve)
  async handle(ctx: CommandContext<ReservePodCommand>): Promise<PlacementView> {
    const { view, rates } = await this.reserve(ctx);
    if (rates) return { ...view, rates };
    const { gpuTypeId, gpuCount, hostId } = view;
    const cpuTypeId = ctx.payload.cpuTypeId ?? null;
    return {
      ...view,
      rates: await this.catalog.rates({ gpuTypeId, gpuCount, cpuTypeId, hostId }, ctx.manager),
    };
  }

  private async reserve(
    ctx: CommandContext<ReservePodCommand>,
  ): Promise<{ view: PlacementView; rates: UsageRates | null }> {
    const { payload, manager } = ctx;
    // The ledger first, then what the pod holds: a release committed by another transaction (another replica's
    // lane) after this read and before our processed row would otherwise be ordered before us by a rebuild
    // (processed_at) although we answered from the reservation it freed, and the rebuild would place the pod again.
    // What the pod holds, the GPU type, the data centers named, the cluster the pod is a member of, and what its
    // placement reads (the ledger, the snapshot) are read under the lock with the reserves after it in the
    // transaction, one round trip, or were read already by a reserve before it (BatchPlacement.reads). Checked
    // below in the order the refusals have always been given.
    const { batch, pod } = await this.batches.reads(ctx);
    const { held, clusterId } = pod;
    const gpuTypeId = payload.gpuTypeId ?? null;
    const gpuType = gpuTypeId !== null ? (batch.gpuTypes.get(gpuTypeId) ?? null) : null;
    const knownDataCenters = payload.dataCenterIds?.length ? (batch.dataCenters ?? []) : [];
    const ports = [...new Set(payload.ports)];
    const regions = payload.regions ?? [];
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
      return { view: toPlacementView(held, hosts.get(held.hostId)?.publicIp ?? ''), rates: null };
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
    const order: PlacementOrder = {
      ownerId: payload.ownerId,
      clusterId,
      podIds: [payload.podId],
      gpuTypeId,
      gpusPerPod: payload.gpuCount,
      cpuTypeId: payload.cpuTypeId ?? null,
      ports,
      dataCenterIds: [...new Set(payload.dataCenterIds ?? [])],
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
    };
    // From the batch's reads unless the pod held a reservation (released above, which dropped them) or mounts a
    // volume; else, or when those reads cannot place it, the usual way.
    const fromBatch = held || volume ? null : await this.batches.place(ctx, batch, order);
    const applied: AppliedPlacement =
      fromBatch?.applied ?? (await this.placement.apply(manager, order)).applied;
    const view = toPlacedPodView(applied.dataCenterId, applied.pods[0], {
      gpuTypeId,
      gpuCount: gpuTypeId === null ? 0 : payload.gpuCount,
    });
    return { view, rates: fromBatch?.rates ?? null };
  }
}
