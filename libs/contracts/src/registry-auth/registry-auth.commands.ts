import { IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';

/**
 * The password never travels in clear: the gateway seals it before the command is recorded, so the command
 * stream, the logs and the database only ever hold the sealed form.
 */
export class CreateRegistryAuthCommand {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  username: string;

  @IsString()
  @Matches(/^v1\./, { message: 'passwordSealed must be a sealed secret' })
  passwordSealed: string;
}

/**
 * `registry-auth.cmd.update` (GraphQL `updateRegistryAuth`): new username and password of an existing credential;
 * the name stays. The password is sealed by the gateway, as on create.
 */
export class UpdateRegistryAuthCommand {
  @IsString()
  @IsNotEmpty()
  id: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  username: string;

  @IsString()
  @Matches(/^v1\./, { message: 'passwordSealed must be a sealed secret' })
  passwordSealed: string;
}

export class DeleteRegistryAuthCommand {
  @IsString()
  @IsNotEmpty()
  id: string;
}

export class ListRegistryAuthQuery {}

export class GetRegistryAuthQuery {
  @IsString()
  @IsNotEmpty()
  id: string;
}
