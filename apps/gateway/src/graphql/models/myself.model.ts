import { Field, ID, ObjectType } from '@nestjs/graphql';
import { ServerlessDiscountModel } from './serverless-discount.model.js';

/**
 * The calling user (`query { myself { ... } }`). Its lists (endpoints, pods, networkVolumes, ...) are resolved
 * only when selected, each by its family's resolver, so a document asking for the SSH keys does not wait on the
 * endpoints' owner.
 */
@ObjectType('User')
export class MyselfModel {
  @Field(() => ID)
  id: string;

  @Field(() => ServerlessDiscountModel, { nullable: true })
  serverlessDiscount: ServerlessDiscountModel | null;
}
