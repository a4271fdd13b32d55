import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  deriveId,
  type HostChangeResult,
  type InjectGpuFaultCommand,
} from '@app/contracts';
import { CommandBus, CommandHandler, type CommandContext } from '@app/messaging';
import { PodLifecycleConfig } from '../../pod-lifecycle.config.js';
import { gpuFaultReport } from '../gpu-faults.js';

/** The runtimes whose GPUs are make-believe, so a fault can be made up (tests and demos). */
const FAULTABLE = ['simulated', 'local'];

/**
 * `pod.cmd.inject-gpu-fault`: with the simulated or local runtime, a GPU of the host fails as a real one would be
 * reported: `fleet.cmd.report-health` (source runtime, code XID or ECC, the GPU and a sentence naming the Xid),
 * issued with an id derived from this command's, so a redelivery or a replay gets the scheduler's recorded answer,
 * which is this command's. Any other runtime has real GPUs: NOT_AVAILABLE.
 */
@Injectable()
export class InjectGpuFaultHandler {
  constructor(
    private readonly config: PodLifecycleConfig,
    private readonly commands: CommandBus,
  ) {}

  @CommandHandler(Subjects.pod.injectGpuFault)
  handle(ctx: CommandContext<InjectGpuFaultCommand>): Promise<HostChangeResult> {
    const driver = this.config.RUNTIME_DRIVER;
    if (!FAULTABLE.includes(driver)) {
      throw new DomainError(
        ErrorCode.NotAvailable,
        `GPU faults can be injected only with the simulated and local runtimes; this one is ${driver}`,
      );
    }
    const { envelope } = ctx;
    return this.commands.execute(Subjects.fleet.reportHealth, gpuFaultReport(ctx.payload), envelope.actor, {
      commandId: deriveId(envelope.commandId, 'report-health'),
      issuedAt: envelope.issuedAt,
    });
  }
}
