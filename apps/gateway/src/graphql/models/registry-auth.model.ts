import { Field, ID, ObjectType } from '@nestjs/graphql';

/** A container registry credential as GraphQL shows it: the username and password are write-only. */
@ObjectType('ContainerRegistryAuth')
export class RegistryAuthModel {
  @Field(() => ID)
  id: string;

  @Field(() => String)
  name: string;
}
