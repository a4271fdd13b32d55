import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Min } from 'class-validator';

/** What the replay tool reads from the environment: the deployment's NATS (and, for rebuild, its database). */
export class ReplayConfig {
  @Matches(/^(nats|tls):\/\/\S+(,(nats|tls):\/\/\S+)*$/, {
    message: 'NATS_URL must be one or more nats:// URLs separated by commas',
  })
  NATS_URL = 'nats://127.0.0.1:4222';

  @Matches(/^[A-Za-z][A-Za-z0-9]{0,31}$/, {
    message: 'NATS_PREFIX must be 1-32 letters or digits, starting with a letter',
  })
  NATS_PREFIX = 'gpucp';

  /** The live database (rebuild only): compared with the rebuild, whose fresh database is made on its server. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// connection URL' })
  DATABASE_URL?: string;

  /** How long an owner may take to say whether a command was applied. */
  @IsInt()
  @Min(100)
  @Type(() => Number)
  BUS_REQUEST_TIMEOUT_MS = 5000;

  /** How long to wait for the outcome of each replayed command. */
  @IsInt()
  @Min(100)
  @Type(() => Number)
  COMMAND_TIMEOUT_MS = 15000;
}
