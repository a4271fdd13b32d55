import { Field, ObjectType } from '@nestjs/graphql';

@ObjectType('EnvironmentVariable')
export class EnvironmentVariableModel {
  @Field(() => String)
  key: string;

  @Field(() => String)
  value: string;
}
