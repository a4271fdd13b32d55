import { Field, ID, Int, ObjectType } from '@nestjs/graphql';
import { EnvironmentVariableModel } from './environment-variable.model.js';

/** A template as the GraphQL API shows it (`saveTemplate`'s answer): RunPod's names, ports as one string. */
@ObjectType('PodTemplate')
export class TemplateModel {
  @Field(() => ID)
  id: string;

  @Field(() => String)
  name: string;

  @Field(() => String)
  imageName: string;

  @Field(() => String)
  dockerArgs: string;

  @Field(() => Int)
  containerDiskInGb: number;

  /** The pod volume (host-local persistent storage) of pods made from it, GB; 0 for none. */
  @Field(() => Int)
  volumeInGb: number;

  @Field(() => String, { nullable: true })
  volumeMountPath: string | null;

  /** Comma-separated, e.g. `8888/http,22/tcp`. */
  @Field(() => String)
  ports: string;

  @Field(() => [EnvironmentVariableModel])
  env: EnvironmentVariableModel[];

  @Field(() => Boolean)
  isServerless: boolean;

  @Field(() => String, { nullable: true })
  containerRegistryAuthId: string | null;

  @Field(() => String)
  readme: string;

  @Field(() => Boolean)
  isPublic: boolean;
}
