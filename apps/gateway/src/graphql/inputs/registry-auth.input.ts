import { Field, InputType } from '@nestjs/graphql';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** `saveRegistryAuth(input: {name, username, password})`: the limits of the REST body. */
@InputType('SaveRegistryAuthInput')
export class SaveRegistryAuthInput {
  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name: string;

  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  username: string;

  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  password: string;
}

/** `updateRegistryAuth(input: {id, username, password})`: new secrets for an existing credential. */
@InputType('UpdateRegistryAuthInput')
export class UpdateRegistryAuthInput {
  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  id: string;

  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  username: string;

  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  password: string;
}
