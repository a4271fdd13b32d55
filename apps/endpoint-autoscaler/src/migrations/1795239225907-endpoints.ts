import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Endpoints1795239225907 implements MigrationInterface {
  name = 'Endpoints1795239225907';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "endpoint_autoscaler"."endpoints" ("id" text NOT NULL, "owner_id" text NOT NULL, "name" text NOT NULL, "type" text NOT NULL, "template_id" text NOT NULL, "gpu_ids" text array NOT NULL, "gpu_count" integer NOT NULL, "locations" text array NOT NULL, "idle_timeout" integer NOT NULL, "scaler_type" text NOT NULL, "scaler_value" integer NOT NULL, "workers_min" integer NOT NULL, "workers_max" integer NOT NULL, "flash_boot" boolean NOT NULL, "network_volume_id" text, "allowed_cuda_versions" text NOT NULL, "env" jsonb NOT NULL, "ai_key_sealed" text NOT NULL, "version" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_70835610dfa54ad5d990e02f70a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "endpoints_owner_idx" ON "endpoint_autoscaler"."endpoints"  ("owner_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "endpoint_autoscaler"."scaling_events" ("id" text NOT NULL, "endpoint_id" text NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL, "action" text NOT NULL, "pod_id" text, "workers_before" integer NOT NULL, "workers_desired" integer NOT NULL, "reason" text NOT NULL, "inputs" jsonb NOT NULL, CONSTRAINT "PK_2d641d499b5e00d76fd12ba836b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "scaling_events_endpoint_at_idx" ON "endpoint_autoscaler"."scaling_events"  ("endpoint_id", "at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "endpoint_autoscaler"."workers" ("pod_id" text NOT NULL, "endpoint_id" text NOT NULL, "create_command_id" text NOT NULL, "created" boolean NOT NULL, "desired" text NOT NULL, "pod_status" text, "action_seq" integer NOT NULL, "desired_since" TIMESTAMP WITH TIME ZONE NOT NULL, "idle_since" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_985ece4c94d3ef186a6d54f3f54" PRIMARY KEY ("pod_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "workers_endpoint_idx" ON "endpoint_autoscaler"."workers"  ("endpoint_id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "endpoint_autoscaler"."workers_endpoint_idx"`);
    await queryRunner.query(`DROP TABLE "endpoint_autoscaler"."workers"`);
    await queryRunner.query(`DROP INDEX "endpoint_autoscaler"."scaling_events_endpoint_at_idx"`);
    await queryRunner.query(`DROP TABLE "endpoint_autoscaler"."scaling_events"`);
    await queryRunner.query(`DROP INDEX "endpoint_autoscaler"."endpoints_owner_idx"`);
    await queryRunner.query(`DROP TABLE "endpoint_autoscaler"."endpoints"`);
  }
}
