import { Field, Int, ObjectType } from '@nestjs/graphql';

@ObjectType('NetworkVolume')
export class NetworkVolumeModel {
  @Field(() => String)
  id: string;

  @Field(() => String)
  name: string;

  /** Size in GB. */
  @Field(() => Int)
  size: number;

  @Field(() => String)
  dataCenterId: string;
}
