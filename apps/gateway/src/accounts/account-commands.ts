import type { Actor, CommandPayload, CommandResult, CommandSubject } from '@app/contracts';

/**
 * How the accounts feature issues its commands: in the gateway, the command bus (recorded, then applied by the
 * gateway's own consumer); in the keys CLI, recorded and applied by the CLI itself (cli/local-account-commands.ts),
 * so an operator can create the first user before any app runs. Either way the command is in the deployment's
 * commands stream, and a rebuild applies it again.
 */
export abstract class AccountCommands {
  abstract execute<S extends CommandSubject>(
    subject: S,
    payload: CommandPayload<S>,
    actor: Actor,
  ): Promise<CommandResult<S>>;
}
