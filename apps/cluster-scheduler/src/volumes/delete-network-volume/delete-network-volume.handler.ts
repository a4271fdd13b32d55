import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type DeleteNetworkVolumeCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedNetworkVolume } from '../network-volume.access.js';
import { NetworkVolumesRepository } from '../network-volumes.repository.js';
import { VolumeUsageRepository } from '../usage/volume-usage.repository.js';
import { ClustersMountingVolume, PodsMountingVolume, VolumeMountsLock } from '../volume-mounts.js';

@Injectable()
export class DeleteNetworkVolumeHandler {
  constructor(
    private readonly repository: NetworkVolumesRepository,
    private readonly usage: VolumeUsageRepository,
    private readonly clustersMounting: ClustersMountingVolume,
    private readonly podsMounting: PodsMountingVolume,
    private readonly mountsLock: VolumeMountsLock,
  ) {}

  @CommandHandler(Subjects.volume.delete)
  async handle(ctx: CommandContext<DeleteNetworkVolumeCommand>): Promise<null> {
    const { envelope, payload, manager } = ctx;
    // Locked before the mounts are counted: a mount in flight in another lane holds the row FOR SHARE, so this
    // waits for it and then counts it; one that comes later waits for this and finds the volume gone.
    const volume = ownedNetworkVolume(
      await this.repository.lockById(payload.id, manager),
      payload.id,
      envelope.actor,
    );
    // And the mounts counted under the lock their changes hold: a release or a cluster delete in flight too.
    await this.mountsLock.lock(manager);
    const clusters = await this.clustersMounting.mountingVolume(volume.id, manager);
    const pods = await this.podsMounting.mountingVolume(volume.id, manager);
    if (clusters || pods) {
      const users = [clusters ? `${clusters} cluster(s)` : '', pods ? `${pods} pod(s)` : '']
        .filter(Boolean)
        .join(' and ');
      throw new DomainError(
        ErrorCode.InUse,
        `network volume ${volume.id} is mounted by ${users}; delete or terminate them first`,
      );
    }
    await this.repository.delete(volume.id, manager);
    await this.usage.close(volume.id, ctx.now, manager);
    await ctx.emit(Subjects.volume.deleted, { id: volume.id, ownerId: volume.ownerId });
    return null;
  }
}
