import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  type NetworkVolumeView,
  type UpdateNetworkVolumeCommand,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedNetworkVolume } from '../network-volume.access.js';
import { toNetworkVolumeView } from '../network-volume.mapper.js';
import { NetworkVolumesRepository } from '../network-volumes.repository.js';
import { VolumeUsageRepository } from '../usage/volume-usage.repository.js';

/**
 * Renames a volume or grows it. Storage only grows: data already written may fill the old size, so a smaller
 * size is refused (400), whether or not anything mounts the volume. The row is locked, so two concurrent grows
 * apply one after the other and each compares against the size the other left.
 */
@Injectable()
export class UpdateNetworkVolumeHandler {
  constructor(
    private readonly repository: NetworkVolumesRepository,
    private readonly usage: VolumeUsageRepository,
  ) {}

  @CommandHandler(Subjects.volume.update)
  async handle(ctx: CommandContext<UpdateNetworkVolumeCommand>): Promise<NetworkVolumeView> {
    const { envelope, payload, manager } = ctx;
    if (payload.name == null && payload.size == null) {
      throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
        'name or size must be given: there is nothing else to change',
      ]);
    }
    const volume = ownedNetworkVolume(
      await this.repository.lockById(payload.id, manager),
      payload.id,
      envelope.actor,
    );
    if (payload.size != null && payload.size < volume.sizeGb) {
      throw new DomainError(
        ErrorCode.BadRequest,
        `network volume ${volume.id} has ${volume.sizeGb} GB; a volume can only grow, not shrink to ${payload.size} GB`,
      );
    }
    if (payload.name != null) volume.name = payload.name;
    const resized = payload.size != null && payload.size !== volume.sizeGb;
    if (payload.size != null) volume.sizeGb = payload.size;
    await this.repository.update(volume, manager);
    if (resized) {
      // Usage at the old size ends and at the new one starts, now.
      await this.usage.close(volume.id, ctx.now, manager);
      await this.usage.open(volume, ctx.now, manager);
    }
    return toNetworkVolumeView(volume);
  }
}
