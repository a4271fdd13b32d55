import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** Body of `POST /console/sso/account`: the account (the user's own id, or a team's) the console acts for. */
export class SwitchAccountDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  accountId: string;
}
