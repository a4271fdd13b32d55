import { Injectable } from '@nestjs/common';
import {
  DEFAULT_CONTAINER_DISK_GB,
  DomainError,
  ErrorCode,
  PodStatus,
  Subjects,
  deriveId,
  podFieldNames,
  priorityRank,
  type CommandEnvelope,
  type CreatePodCommand,
  type PlacementView,
  type PodView,
  type ReservePodCommand,
} from '@app/contracts';
import { CommandBus, CommandHandler, type CommandContext } from '@app/messaging';
import { ownedRegistryAuth } from '../../registry-auth/registry-auth.access.js';
import { RegistryAuthRepository } from '../../registry-auth/registry-auth.repository.js';
import { CatalogTemplates } from '../../templates/catalog-templates.js';
import { ownedTemplate } from '../../templates/template.access.js';
import type { TemplateEntity } from '../../templates/template.entity.js';
import { TemplateRepository } from '../../templates/template.repository.js';
import { PodEntity } from '../pod.entity.js';
import { toPodView, toStatusChangedEvent } from '../pod.mapper.js';
import { PodRepository } from '../pod.repository.js';
import { applyPlacement, workloadOf } from '../pod-transitions.js';
import { SpendLedger } from '../../spend/spend-ledger.service.js';
import { PodUsage } from '../usage/pod-usage.service.js';
import { withAccessSetup } from './pod-access-setup.js';
import { createMounts } from './pod-mounts.js';

/** The pod's configuration once the template's defaults and the request are merged and checked. */
interface Resolved {
  image: string;
  args: string | null;
  env: Record<string, string>;
  ports: string[];
  containerDiskGb: number;
  volumeMountPath: string | null;
  registryAuthId: string | null;
  gpuTypeIds: string[];
  gpuCount: number;
  cpuTypeId: string | null;
}

/**
 * A standalone pod: template and request merged (the request wins), the template and the registry credential
 * checked (404/403), then placed by the scheduler (`placement.cmd.reserve`, derived command id, trying the GPU
 * types in order), then written PROVISIONING; the runtime driver takes it from there. Every check happens
 * before the reservation, so nothing after it can fail for a reason the user could have fixed.
 */
@Injectable()
export class CreatePodHandler {
  constructor(
    private readonly pods: PodRepository,
    private readonly templates: TemplateRepository,
    private readonly registryAuths: RegistryAuthRepository,
    private readonly commands: CommandBus,
    private readonly catalog: CatalogTemplates,
    private readonly usage: PodUsage,
    private readonly spend: SpendLedger,
  ) {}

  @CommandHandler(Subjects.pod.create)
  async handle(ctx: CommandContext<CreatePodCommand>): Promise<PodView> {
    const { envelope, payload, manager } = ctx;
    const secretEnv = payload.secretEnv ?? {};
    if (Object.keys(secretEnv).length && envelope.actor.kind !== 'system') {
      // Defence in depth: a sealed value opens into the pod whoever asks, so only the platform may hand one over.
      throw new DomainError(ErrorCode.Forbidden, 'secretEnv is set by the platform only');
    }
    const templateId = payload.templateId;
    // A public template of the catalog is anyone's to start from; otherwise it must be the caller's.
    const template = templateId
      ? ((await this.catalog.find(templateId)) ??
        ownedTemplate(await this.templates.lockById(templateId, manager), templateId, envelope.actor))
      : null;
    const merged = resolve(payload, template);
    const resolved = { ...merged, ...withAccessSetup(payload, envelope.commandId, merged.ports, merged.env) };
    const storage = createMounts(payload, resolved.gpuCount === 0, template);
    if (resolved.registryAuthId) {
      const id = resolved.registryAuthId;
      ownedRegistryAuth(await this.registryAuths.lockById(id, manager, 'share'), id, envelope.actor);
    }
    // Last of the checks: new GPU work is refused once the owner's monthly spend limit is reached (402).
    await this.spend.assertUnderLimit(envelope.actor, ctx.now, 'pod create');
    const podId = deriveId(envelope.commandId, 'pod');
    const workload = {
      priority: priorityRank(payload.priority),
      interruptible: payload.interruptible ?? false,
    };
    const placement = await this.place(envelope, podId, payload, resolved, storage.networkVolumeId, workload);
    const pod = Object.assign(new PodEntity(), {
      id: podId,
      ownerId: envelope.actor.userId,
      name: payload.name,
      image: resolved.image,
      args: resolved.args,
      env: withoutNames(resolved.env, Object.keys(secretEnv)),
      secretEnv,
      ports: resolved.ports,
      portMappings: {},
      publicIp: null,
      containerDiskGb: resolved.containerDiskGb,
      volumeMountPath: storage.volumeMountPath ?? resolved.volumeMountPath,
      gpuTypeId: null,
      gpuCount: resolved.gpuCount,
      cpuTypeId: resolved.cpuTypeId,
      hostId: null,
      dataCenterId: null,
      clusterId: null,
      clusterRank: null,
      clusterRole: null,
      overlayIp: null,
      mounts: storage.mounts,
      templateId: template?.id ?? null,
      registryAuthId: resolved.registryAuthId,
      networkVolumeId: storage.networkVolumeId,
      status: PodStatus.Provisioning,
      desiredStatus: PodStatus.Running,
      statusReason: null,
      hostNotice: null,
      hostNoticeAt: null,
      stopDeadline: null,
      generation: 0,
      diskEpoch: 0,
      lastStatusChange: ctx.now,
      lastStartedAt: ctx.now,
      createdAt: ctx.now,
      computePerHr: 0,
      containerDiskPerGbHr: 0,
      // A serverless worker (the autoscaler, a system actor, names its endpoint), metered as the endpoint's.
      endpointId: envelope.actor.kind === 'system' ? (resolved.env.RUNPOD_ENDPOINT_ID ?? null) : null,
      ...workload,
    } satisfies PodEntity);
    applyPlacement(pod, placement);
    // Its host's pod set, before the insert: a host-lost (drained, notice) of that host on another replica either
    // sees this pod or is dated before it (PodRepository.lockHosts).
    await this.pods.lockHosts([pod.hostId], manager);
    await this.pods.insert(pod, manager);
    await this.usage.statusChanged(pod, null, ctx.now, manager);
    await ctx.emit(Subjects.pod.statusChanged, toStatusChangedEvent(pod, null), pod.id);
    return toPodView(pod);
  }

  /** Reserves capacity, trying each acceptable GPU type in order; the last refusal is the answer. */
  private async place(
    envelope: CommandEnvelope,
    podId: string,
    payload: CreatePodCommand,
    resolved: Resolved,
    networkVolumeId: string | null,
    workload: Pick<PodEntity, 'priority' | 'interruptible'>,
  ): Promise<PlacementView> {
    const base: Omit<ReservePodCommand, 'gpuTypeId'> = {
      podId,
      ownerId: envelope.actor.userId,
      gpuCount: resolved.gpuCount,
      ...(resolved.cpuTypeId ? { cpuTypeId: resolved.cpuTypeId } : {}),
      ...(payload.dataCenterIds?.length ? { dataCenterIds: payload.dataCenterIds } : {}),
      ...(networkVolumeId ? { networkVolumeId } : {}),
      ports: resolved.ports,
      ...workloadOf(workload),
      ...(payload.vocabulary ? { vocabulary: payload.vocabulary } : {}),
    };
    const attempts = resolved.gpuTypeIds.length ? resolved.gpuTypeIds : [null];
    let refusal: DomainError | undefined;
    for (const [i, gpuTypeId] of attempts.entries()) {
      try {
        return await this.commands.execute(
          Subjects.placement.reserve,
          gpuTypeId ? { ...base, gpuTypeId } : base,
          envelope.actor,
          {
            commandId: deriveId(envelope.commandId, i === 0 ? 'reserve' : `reserve/${i}`),
            issuedAt: envelope.issuedAt,
          },
        );
      } catch (error) {
        if (error instanceof DomainError && error.code === ErrorCode.OwnerUnavailable) {
          // The reserve is recorded and will be applied when the scheduler is back: record its release behind
          // it (same stream, so applied after it), so no capacity stays held for a pod that was never created.
          await this.commands.record(
            this.commands.envelope(
              Subjects.placement.release,
              { podId },
              envelope.actor,
              deriveId(envelope.commandId, `release/${i}`),
              envelope.issuedAt,
            ),
          );
        }
        if (!(error instanceof DomainError) || error.code !== ErrorCode.CapacityUnavailable) throw error;
        refusal = error;
      }
    }
    throw refusal ?? new DomainError(ErrorCode.CapacityUnavailable, 'no capacity for this pod');
  }
}

/** `env` without the variables `secretEnv` sets (those win, and nothing stays in clear beside their sealed form). */
function withoutNames(env: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !names.includes(name)));
}

/**
 * Merges the template's defaults with the request and checks what validation alone cannot (422), naming the
 * fields as the request's surface does (pod-field-names.ts).
 */
export function resolve(payload: CreatePodCommand, template: TemplateEntity | null): Resolved {
  const errors: string[] = [];
  const field = podFieldNames(payload.vocabulary);
  const image = payload.imageName ?? template?.image;
  if (!image) errors.push(`${field('imageName')} must be given when no templateId is`);
  const gpuTypeIds = [
    ...new Set([...(payload.gpuTypeId ? [payload.gpuTypeId] : []), ...(payload.gpuTypeIds ?? [])]),
  ];
  const computeType =
    payload.computeType ?? (gpuTypeIds.length ? 'GPU' : payload.cpuFlavorId ? 'CPU' : 'GPU');
  let gpuCount: number;
  if (computeType === 'GPU') {
    if (!gpuTypeIds.length) {
      errors.push(`${field('gpuTypes')} is required for a GPU pod; set ${field('cpuPod')} for a CPU pod`);
    }
    if (payload.cpuFlavorId) errors.push(`${field('cpuFlavorId')} is only for CPU pods`);
    gpuCount = payload.gpuCount ?? 1;
    if (gpuCount < 1) errors.push(`${field('gpuCount')} must be at least 1 for a GPU pod`);
  } else {
    if (gpuTypeIds.length) errors.push(`a CPU pod takes no ${field('gpuTypeId')}`);
    if (payload.gpuCount) errors.push(`a CPU pod takes no GPUs (${field('gpuCount')} must be 0)`);
    gpuCount = 0;
  }
  if (errors.length) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the pod request failed validation', errors);
  }
  return {
    image: image!,
    args: payload.dockerArgs ?? (template?.args || null),
    env: { ...(template?.env ?? {}), ...(payload.env ?? {}) },
    ports: payload.ports ?? template?.ports ?? [],
    containerDiskGb: payload.containerDiskInGb ?? template?.containerDiskGb ?? DEFAULT_CONTAINER_DISK_GB,
    volumeMountPath: payload.volumeMountPath ?? template?.volumeMountPath ?? null,
    registryAuthId: payload.containerRegistryAuthId ?? template?.registryAuthId ?? null,
    gpuTypeIds: computeType === 'GPU' ? gpuTypeIds : [],
    gpuCount,
    cpuTypeId: computeType === 'CPU' ? (payload.cpuFlavorId ?? null) : null,
  };
}
