import { IsOptional, Matches } from 'class-validator';
import { BusConfig } from '@app/config';

/**
 * What the replay tool reads from the environment: the deployment's bus (NATS_URL, NATS_PREFIX, and how long to
 * wait for an owner's answer and for each replayed command's outcome) and, for rebuild, its database.
 */
export class ReplayConfig extends BusConfig {
  /** The live database (rebuild only): compared with the rebuild, whose fresh database is made on its server. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// connection URL' })
  DATABASE_URL?: string;
}
