import { Injectable } from '@nestjs/common';
import { Subjects, type ReservePodCommand, type UsageRates } from '@app/contracts';
import { transactionScratch } from '@app/database';
import type { CommandContext } from '@app/messaging';
import { placementRates } from '../../catalog/prices.js';
import {
  claimTerms,
  placementRequest,
  type AppliedPlacement,
  type PlacementOrder,
} from '../placement.applier.js';
import { DEFAULT_PLUGINS } from '../plugins/index.js';
import { PlacementRepository } from '../placement.repository.js';
import { allocatePorts, LostRaceError, type PodClaim } from '../port-allocation.js';
import { quotaPlugins } from '../quota-admission.js';
import { ReserveBatch, ledgerKey, shapeKey, surePlace, type PodReads } from './reserve-batch.js';
import { ReserveBatchRepository, type AheadReserve } from './reserve-batch.repository.js';

/** What the read-ahead reads for a reserve: its pod, and its plan's inputs unless it mounts a network volume. */
export function aheadOf(p: ReservePodCommand): AheadReserve {
  const gpuTypeId = p.gpuTypeId ?? null;
  const plannable = !p.networkVolumeId && p.gpuCount < 2 ** 31;
  return {
    podId: p.podId,
    ownerId: p.ownerId,
    gpuTypeId,
    namesDataCenters: !!p.dataCenterIds?.length,
    request: plannable
      ? placementRequest({
          gpuTypeId,
          gpusPerPod: p.gpuCount,
          cpuTypeId: p.cpuTypeId ?? null,
          podIds: [p.podId],
          ports: [...new Set(p.ports)],
          dataCenterIds: [...new Set(p.dataCenterIds ?? [])],
          regions: p.regions ?? [],
          volume: null,
          hostId: p.hostId ?? null,
        })
      : null,
  };
}

/** Whether the batch holds every read the reserve makes before it places. */
function covers(batch: ReserveBatch, own: AheadReserve): boolean {
  if (!batch.pods.has(own.podId)) return false;
  if (own.gpuTypeId !== null && !batch.gpuTypes.has(own.gpuTypeId)) return false;
  if (own.namesDataCenters && !batch.dataCenters) return false;
  if (!own.request) return true;
  if (own.gpuTypeId !== null && !batch.ledgers.has(ledgerKey(own.ownerId, own.gpuTypeId))) return false;
  return batch.shapes.has(shapeKey(own.request));
}

/**
 * A lane's batch of reserves planned together (docs/adr/0005, "Placement at fleet size"): the first reserve reads
 * what it and the reserves after it in the transaction need (ReserveBatchRepository.read, one round trip), each
 * then plans from those reads with the claims before it folded in, and sends its claim without waiting. A reserve
 * whose reads were dropped (another placement write took the ledger's lock) reads again for itself and those
 * after it. A plan these reads cannot make for sure, a refusal and a preemption go the usual way
 * (PlacementApplier.apply), which reads again. Outside a command batch's transaction nothing is kept: a lone
 * reserve reads for itself.
 */
@Injectable()
export class BatchPlacement {
  constructor(
    private readonly ledger: PlacementRepository,
    private readonly repository: ReserveBatchRepository,
  ) {}

  /**
   * The reserve's reads, under the ledger's lock: kept from an earlier reserve of the transaction (which took the
   * lock, held to the transaction's end: a savepoint's rollback would have dropped them), or read now, after taking
   * the lock, for it and the reserves after it.
   */
  async reads(ctx: CommandContext<ReservePodCommand>): Promise<{ batch: ReserveBatch; pod: PodReads }> {
    const scratch = transactionScratch(ctx.manager);
    const own = aheadOf(ctx.payload);
    const kept = scratch?.get(ReserveBatch) as ReserveBatch | undefined;
    if (kept && covers(kept, own)) return { batch: kept, pod: kept.takePod(own.podId)! };
    await this.ledger.lockLedger(ctx.manager);
    const later = (ctx.later ?? [])
      .filter((c) => c.subject === Subjects.placement.reserve)
      .map((c) => aheadOf(c.payload as ReservePodCommand));
    const batch = await this.repository.read(ctx.manager, [own, ...later]);
    scratch?.set(ReserveBatch, batch);
    return { batch, pod: batch.takePod(own.podId)! };
  }

  /**
   * Places the order from the batch's reads, claims it (sent without waiting) and folds the claim in; or null when
   * the reads cannot tell the plan, or it is a refusal (no capacity, the quota): then PlacementApplier.apply.
   */
  async place(
    ctx: CommandContext<ReservePodCommand>,
    batch: ReserveBatch,
    order: PlacementOrder,
  ): Promise<{ applied: AppliedPlacement; rates: UsageRates } | null> {
    const request = placementRequest(order);
    const found = batch.snapshot(request);
    const ledger =
      order.gpuTypeId === null ? null : batch.ledgers.get(ledgerKey(order.ownerId, order.gpuTypeId));
    if (!found || ledger === undefined) return null;
    const asked = request.podCount * request.gpusPerPod;
    const plugins = quotaPlugins(DEFAULT_PLUGINS, ledger, asked);
    const plan = surePlace(found.snapshot, found.incomplete, request, plugins);
    if (!plan?.ok) return null;
    const claims = plan.assignments.map((a): PodClaim => ({ podId: order.podIds[a.rank], hostId: a.hostId }));
    const used = claims.flatMap((c) =>
      [...batch.hosts.get(c.hostId)!.used].map((port) => ({ hostId: c.hostId, port })),
    );
    let mappings: Map<string, Record<string, number>>;
    try {
      mappings = allocatePorts(order.ports, claims, batch.hosts, used);
    } catch (error) {
      // A host out of ports its counter says it has: the usual way finds out, as it always has.
      if (error instanceof LostRaceError) return null;
      throw error;
    }
    const terms = claimTerms(order, request, plan.dataCenterId);
    // Resolved at once in a command's transaction (sent without waiting); awaited elsewhere.
    await this.repository.claim(ctx.manager, terms, claims, mappings);
    for (const claim of claims) {
      batch.fold({
        ownerId: order.ownerId,
        gpuTypeId: order.gpuTypeId,
        dataCenterId: plan.dataCenterId,
        hostId: claim.hostId,
        gpus: terms.gpuCount,
        cpuSlots: terms.cpuSlots,
        ports: Object.values(mappings.get(claim.podId) ?? {}),
      });
    }
    const pods = plan.assignments.map((a) => {
      const host = batch.hosts.get(a.hostId)!;
      const podId = order.podIds[a.rank];
      return {
        podId,
        rank: a.rank,
        hostId: a.hostId,
        publicIp: host.publicIp,
        portMappings: mappings.get(podId) ?? {},
      };
    });
    const host = batch.hosts.get(pods[0].hostId)!;
    // As CatalogRepository.rates prices it: the GPU type's price, or the CPU type's (asked, else the host's).
    const rates = placementRates(order.gpuTypeId, request.gpusPerPod, {
      gpu: order.gpuTypeId === null ? null : (batch.gpuPrices.get(order.gpuTypeId) ?? null),
      cpu: batch.cpuPrices.get(order.cpuTypeId ?? host.cpuTypeId ?? '') ?? null,
      disk: batch.diskPrice,
    });
    return { applied: { dataCenterId: plan.dataCenterId, pods, overlay: null }, rates };
  }
}
