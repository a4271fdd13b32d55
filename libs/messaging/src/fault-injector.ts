import { Injectable, Logger } from '@nestjs/common';
import { BaseConfig } from '@app/config';

export type FaultStage = 'crash-before-commit' | 'crash-after-commit';

/**
 * Test-only: `FAULT_INJECT=<stage>:<subject>` kills the process with SIGKILL at that point of handling that
 * subject, to prove a crash half-way through a command loses nothing and applies it exactly once.
 */
@Injectable()
export class FaultInjector {
  private readonly logger = new Logger('fault-injector');
  private readonly stage?: FaultStage;
  private readonly subject?: string;

  constructor(config: BaseConfig) {
    if (config.FAULT_INJECT) {
      const [stage, subject] = config.FAULT_INJECT.split(':');
      this.stage = stage as FaultStage;
      this.subject = subject;
      this.logger.warn(`fault injection armed: ${config.FAULT_INJECT}`);
    }
  }

  maybeCrash(stage: FaultStage, subject: string): void {
    if (this.stage === stage && this.subject === subject) {
      this.logger.warn(`fault injection: SIGKILL at ${stage} of ${subject}`);
      process.kill(process.pid, 'SIGKILL');
    }
  }
}
