import { Injectable, Logger } from '@nestjs/common';
import {
  DomainError,
  ENDPOINT_DEFAULTS,
  ErrorCode,
  Subjects,
  newEndpointId,
  priorityRank,
  type EndpointSavedEvent,
  type EndpointView,
  type SaveEndpointCommand,
} from '@app/contracts';
import { CommandHandler, QueryBus, checkSpendLimit, type CommandContext } from '@app/messaging';
import { ownedEndpoint } from '../endpoint.access.js';
import { EndpointReferences } from '../endpoint-references.js';
import { EndpointEntity } from '../endpoint.entity.js';
import { toEndpointView } from '../endpoint.mapper.js';
import { EndpointsRepository } from '../endpoints.repository.js';

/**
 * Creates an endpoint (no `id`; omitted fields take their defaults) or modifies one of the actor's (omitted
 * fields keep their values; the type cannot change). The control loop picks the new configuration up on its next
 * tick, so nothing else happens here. Raising workersMin (or creating an endpoint with workersMin above 0) asks for
 * GPU work that runs whether jobs come or not: it is refused (402) once the owner's monthly spend limit is reached
 * (docs/adr/0023-spend-limits.md); every other change, lowering workersMin included, is not. What the endpoint
 * names in other apps is checked here too, before anything else changes: the template is the actor's (or a public
 * one) and serverless, the network volume the actor's and in one of the endpoint's regions.
 */
@Injectable()
export class SaveEndpointHandler {
  private readonly logger = new Logger('endpoints');
  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly references: EndpointReferences,
    private readonly queries: QueryBus,
  ) {}

  @CommandHandler(Subjects.endpoint.save)
  async handle(ctx: CommandContext<SaveEndpointCommand>): Promise<EndpointView> {
    const { envelope, payload, manager } = ctx;
    const created = !payload.id;
    const current = payload.id
      ? ownedEndpoint(await this.endpoints.lockLive(payload.id, manager), payload.id, envelope.actor)
      : null;
    await this.references.checkTemplate(payload.templateId, envelope.actor);
    const networkVolumeId =
      payload.networkVolumeId === undefined ? (current?.networkVolumeId ?? null) : payload.networkVolumeId;
    if (networkVolumeId) {
      const locations = payload.locations ?? current?.locations ?? [];
      await this.references.checkNetworkVolume(networkVolumeId, locations, envelope.actor);
    }
    const workersMinBefore = current?.workersMin ?? 0;
    const entity = current
      ? this.modified(current, payload)
      : this.created(newEndpointId(envelope.commandId), envelope.actor.userId, payload, ctx.now);
    entity.updatedAt = ctx.now;
    checkWorkerBounds(entity);
    if (entity.workersMin > workersMinBefore) {
      await checkSpendLimit(
        this.queries,
        envelope,
        `raising workersMin to ${entity.workersMin}`,
        this.logger,
      );
    }
    if (created) await this.endpoints.insert(entity, manager);
    else await this.endpoints.save(entity, manager);
    const view = toEndpointView(entity);
    const publicView: EndpointView = { ...view };
    delete publicView.aiKeySealed;
    await ctx.emit(Subjects.endpoint.saved, { endpoint: publicView, created } satisfies EndpointSavedEvent);
    return view;
  }

  private created(id: string, ownerId: string, payload: SaveEndpointCommand, now: Date): EndpointEntity {
    if (!payload.aiKeySealed) {
      throw new DomainError(ErrorCode.ValidationFailed, 'the endpoint failed validation', [
        'aiKeySealed is required when an endpoint is created',
      ]);
    }
    return Object.assign(new EndpointEntity(), {
      id,
      ownerId,
      name: payload.name,
      type: payload.type ?? ENDPOINT_DEFAULTS.type,
      templateId: payload.templateId,
      gpuIds: [...new Set(payload.gpuIds)],
      gpuCount: payload.gpuCount ?? ENDPOINT_DEFAULTS.gpuCount,
      locations: [...new Set(payload.locations ?? [])],
      idleTimeout: payload.idleTimeout ?? ENDPOINT_DEFAULTS.idleTimeout,
      scalerType: payload.scalerType ?? ENDPOINT_DEFAULTS.scalerType,
      scalerValue: payload.scalerValue ?? ENDPOINT_DEFAULTS.scalerValue,
      workersMin: payload.workersMin ?? ENDPOINT_DEFAULTS.workersMin,
      workersMax: payload.workersMax ?? Math.max(ENDPOINT_DEFAULTS.workersMax, payload.workersMin ?? 0),
      flashBoot: payload.flashBoot ?? ENDPOINT_DEFAULTS.flashBoot,
      networkVolumeId: payload.networkVolumeId ?? null,
      allowedCudaVersions: payload.allowedCudaVersions ?? '',
      env: payload.env ?? {},
      priority: priorityRank(payload.priority),
      aiKeySealed: payload.aiKeySealed,
      version: 1,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    } satisfies EndpointEntity);
  }

  private modified(entity: EndpointEntity, payload: SaveEndpointCommand): EndpointEntity {
    if (payload.type && payload.type !== entity.type) {
      throw new DomainError(
        ErrorCode.BadRequest,
        `endpoint ${entity.id} is of type ${entity.type}; the type of an endpoint cannot be changed (create a new one)`,
      );
    }
    return Object.assign(entity, {
      name: payload.name,
      templateId: payload.templateId,
      gpuIds: [...new Set(payload.gpuIds)],
      gpuCount: payload.gpuCount ?? entity.gpuCount,
      locations: payload.locations ? [...new Set(payload.locations)] : entity.locations,
      idleTimeout: payload.idleTimeout ?? entity.idleTimeout,
      scalerType: payload.scalerType ?? entity.scalerType,
      scalerValue: payload.scalerValue ?? entity.scalerValue,
      workersMin: payload.workersMin ?? entity.workersMin,
      workersMax: payload.workersMax ?? entity.workersMax,
      flashBoot: payload.flashBoot ?? entity.flashBoot,
      networkVolumeId:
        payload.networkVolumeId === undefined ? entity.networkVolumeId : payload.networkVolumeId,
      allowedCudaVersions: payload.allowedCudaVersions ?? entity.allowedCudaVersions,
      env: payload.env ?? entity.env,
      priority: payload.priority ? priorityRank(payload.priority) : entity.priority,
      version: entity.version + 1,
    });
  }
}

/** workersMin ≤ workersMax (422 naming both values). */
export function checkWorkerBounds(entity: Pick<EndpointEntity, 'workersMin' | 'workersMax'>): void {
  if (entity.workersMin > entity.workersMax) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the endpoint failed validation', [
      `workersMin (${entity.workersMin}) must not be greater than workersMax (${entity.workersMax})`,
    ]);
  }
}
