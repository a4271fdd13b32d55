import { Field, InputType } from '@nestjs/graphql';
import { IsString, MaxLength } from 'class-validator';
import { MAX_SSH_KEYS } from '@app/contracts';

/** `updateUserSettings(input: {pubKey})`: the account's whole key set, one public key per line ("" for none). */
@InputType('UpdateUserSettingsInput')
export class UpdateUserSettingsInput {
  @Field(() => String)
  @IsString()
  @MaxLength(MAX_SSH_KEYS * 16 * 1024)
  pubKey: string;
}
