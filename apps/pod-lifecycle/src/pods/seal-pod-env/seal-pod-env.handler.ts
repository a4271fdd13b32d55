import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  type SealPodEnvCommand,
  type SealPodEnvResult,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PodRepository } from '../pod.repository.js';

/**
 * Moves variables from a pod's `env` into its `secretEnv`, storing the sealed values the command carries (never
 * sealing here: a replay must write the same bytes). The status does not change, so nothing is emitted; the
 * runtime opens the sealed values the next time it creates the container.
 */
@Injectable()
export class SealPodEnvHandler {
  constructor(private readonly pods: PodRepository) {}

  @CommandHandler(Subjects.pod.sealEnv)
  async handle(ctx: CommandContext<SealPodEnvCommand>): Promise<SealPodEnvResult> {
    if (ctx.envelope.actor.kind !== 'system') {
      throw new DomainError(ErrorCode.Forbidden, 'pod.cmd.seal-env is issued by the platform only');
    }
    const pod = await this.pods.lockById(ctx.payload.podId, ctx.manager);
    if (!pod) return { sealed: [] };
    const sealed: string[] = [];
    for (const [name, value] of Object.entries(ctx.payload.secretEnv)) {
      if (!(name in pod.env) || name in pod.secretEnv) continue;
      const { [name]: _plain, ...rest } = pod.env;
      pod.env = rest;
      pod.secretEnv = { ...pod.secretEnv, [name]: value };
      sealed.push(name);
    }
    if (sealed.length) await this.pods.save(pod, ctx.manager);
    return { sealed: sealed.sort() };
  }
}
