import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import type { BaseConfig } from '@app/config';
import type { NatsClient } from '@app/messaging';
import { ACCOUNT_HANDLERS, type AccountHandler } from '../../apps/gateway/src/accounts/account-handlers.js';
import { ApiKeysRepository } from '../../apps/gateway/src/accounts/api-keys.repository.js';
import { TeamsRepository } from '../../apps/gateway/src/accounts/teams.repository.js';
import { UsersRepository } from '../../apps/gateway/src/accounts/users.repository.js';
import { LocalAccountCommands } from '../../apps/gateway/src/cli/local-account-commands.js';

/**
 * Account commands as the keys CLI issues them (recorded under the client's prefix, applied with the gateway's own
 * handlers and processed-commands rows on `dataSource`), for a test that builds AccountsService by hand.
 */
export async function accountCommandsOn(
  dataSource: DataSource,
  nats: NatsClient,
): Promise<LocalAccountCommands> {
  const module = await Test.createTestingModule({
    providers: [
      { provide: DataSource, useValue: dataSource },
      UsersRepository,
      TeamsRepository,
      ApiKeysRepository,
      ...Object.values(ACCOUNT_HANDLERS),
    ],
  }).compile();
  return new LocalAccountCommands(
    (type) => module.get<AccountHandler>(type),
    dataSource,
    { FAULT_INJECT: '' } as unknown as BaseConfig,
    nats,
  );
}
