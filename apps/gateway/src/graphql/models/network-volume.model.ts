import { Field, ObjectType } from '@nestjs/graphql';

@ObjectType('NetworkVolume')
export class NetworkVolumeModel {
  @Field(() => String)
  id: string;

  @Field(() => String)
  dataCenterId: string;
}
