import { Injectable } from '@nestjs/common';
import { Subjects, deriveId, type CreateNetworkVolumeCommand, type NetworkVolumeView } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { CatalogChecks } from '../../catalog/catalog.checks.js';
import { NetworkVolumeEntity } from '../network-volume.entity.js';
import { toNetworkVolumeView } from '../network-volume.mapper.js';
import { NetworkVolumesRepository } from '../network-volumes.repository.js';
import { VolumeUsageRepository } from '../usage/volume-usage.repository.js';

@Injectable()
export class CreateNetworkVolumeHandler {
  constructor(
    private readonly repository: NetworkVolumesRepository,
    private readonly checks: CatalogChecks,
    private readonly usage: VolumeUsageRepository,
  ) {}

  @CommandHandler(Subjects.volume.create)
  async handle(ctx: CommandContext<CreateNetworkVolumeCommand>): Promise<NetworkVolumeView> {
    const { envelope, payload, manager } = ctx;
    await this.checks.dataCenter('dataCenterId', payload.dataCenterId, manager);
    const entity = Object.assign(new NetworkVolumeEntity(), {
      id: deriveId(envelope.commandId),
      ownerId: envelope.actor.userId,
      name: payload.name,
      sizeGb: payload.size,
      dataCenterId: payload.dataCenterId,
      createdAt: ctx.now,
    });
    await this.repository.insert(entity, manager);
    await this.usage.open(entity, ctx.now, manager);
    const view = toNetworkVolumeView(entity);
    await ctx.emit(Subjects.volume.created, { ...view, ownerId: entity.ownerId });
    return view;
  }
}
