import { Field, ID, ObjectType } from '@nestjs/graphql';

/** What `updateUserSettings` answers: the account and its SSH public keys, one authorized_keys line each. */
@ObjectType('UserSettings')
export class UserSettingsModel {
  @Field(() => ID)
  id: string;

  @Field(() => String)
  pubKey: string;
}
