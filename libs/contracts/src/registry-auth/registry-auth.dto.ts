import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** Body of `POST /v1/containerregistryauth`. */
export class CreateRegistryAuthDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  username: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  password: string;
}

/** What the service ever shows of a credential: the password is write-only. */
export interface RegistryAuthView {
  id: string;
  name: string;
}

/** `GET /v2/registries`: v2 lists are wrapped in an object named after the resource. */
export interface RegistryList {
  registries: RegistryAuthView[];
}
