import { Field, ID, ObjectType } from '@nestjs/graphql';
import { EndpointModel } from './endpoint.model.js';
import { ServerlessDiscountModel } from './serverless-discount.model.js';

/** The calling user (`query { myself { ... } }`). */
@ObjectType('User')
export class MyselfModel {
  @Field(() => ID)
  id: string;

  @Field(() => [EndpointModel])
  endpoints: EndpointModel[];

  @Field(() => ServerlessDiscountModel, { nullable: true })
  serverlessDiscount: ServerlessDiscountModel | null;
}
