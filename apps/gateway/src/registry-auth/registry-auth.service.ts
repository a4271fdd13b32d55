import { Injectable } from '@nestjs/common';
import { Subjects, type Actor, type CreateRegistryAuthDto, type RegistryAuthView } from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
import { SecretBox } from '@app/platform';
import { GatewayConfig } from '../gateway.config.js';

/** Container registry credentials, owned by pod-lifecycle; the password is sealed here, before the command. */
@Injectable()
export class RegistryAuthService {
  private readonly box: SecretBox;

  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    config: GatewayConfig,
  ) {
    this.box = new SecretBox(config.REGISTRY_AUTH_KEYS);
  }

  create(dto: CreateRegistryAuthDto, actor: Actor): Promise<RegistryAuthView> {
    return this.commands.execute(
      Subjects.registryAuth.create,
      { name: dto.name, username: dto.username, passwordSealed: this.box.seal(dto.password) },
      actor,
    );
  }

  /** New username and password of an existing credential (GraphQL `updateRegistryAuth`); sealed here too. */
  update(id: string, username: string, password: string, actor: Actor): Promise<RegistryAuthView> {
    return this.commands.execute(
      Subjects.registryAuth.update,
      { id, username, passwordSealed: this.box.seal(password) },
      actor,
    );
  }

  list(actor: Actor): Promise<RegistryAuthView[]> {
    return this.queries.query(Subjects.registryAuth.list, {}, actor);
  }

  get(id: string, actor: Actor): Promise<RegistryAuthView> {
    return this.queries.query(Subjects.registryAuth.get, { id }, actor);
  }

  async delete(id: string, actor: Actor): Promise<void> {
    await this.commands.execute(Subjects.registryAuth.delete, { id }, actor);
  }
}
