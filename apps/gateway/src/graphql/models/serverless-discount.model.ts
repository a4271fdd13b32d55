import { Field, Float, ObjectType } from '@nestjs/graphql';

/** A serverless price discount; this deployment grants none, so `myself.serverlessDiscount` is null. */
@ObjectType('ServerlessDiscount')
export class ServerlessDiscountModel {
  @Field(() => Float)
  discountFactor: number;

  @Field(() => String)
  type: string;

  @Field(() => String, { nullable: true })
  expirationDate: string | null;
}
