import { Field, ObjectType } from '@nestjs/graphql';

/** One worker pod of an endpoint. */
@ObjectType('EndpointPod')
export class EndpointPodModel {
  @Field(() => String)
  id: string;

  /** What the autoscaler wants of the pod: RUNNING, EXITED (stopped, kept for FLASHBOOT) or TERMINATED. */
  @Field(() => String)
  desiredStatus: string;

  /** The pod's status as the autoscaler last saw it; null before its first look. */
  @Field(() => String, { nullable: true })
  status: string | null;
}
