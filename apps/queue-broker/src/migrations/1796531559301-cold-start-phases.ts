import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ColdStartPhases1796531559301 implements MigrationInterface {
  name = 'ColdStartPhases1796531559301';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."worker_starts" ("worker_id" text NOT NULL, "endpoint_id" text NOT NULL, "decided_at" TIMESTAMP WITH TIME ZONE, "placed_at" TIMESTAMP WITH TIME ZONE, "starting_at" TIMESTAMP WITH TIME ZONE, "running_at" TIMESTAMP WITH TIME ZONE, "last_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_b45951cb35a32079cffaf55958c" PRIMARY KEY ("worker_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "worker_starts_last_at_idx" ON "queue_broker"."worker_starts"  ("last_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" ADD "cold_placement_hist" integer array NOT NULL DEFAULT '{}'`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" ADD "cold_runtime_hist" integer array NOT NULL DEFAULT '{}'`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" ADD "cold_pull_hist" integer array NOT NULL DEFAULT '{}'`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" ADD "cold_container_hist" integer array NOT NULL DEFAULT '{}'`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" ADD "cold_ready_hist" integer array NOT NULL DEFAULT '{}'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" DROP COLUMN "cold_ready_hist"`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" DROP COLUMN "cold_container_hist"`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" DROP COLUMN "cold_pull_hist"`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" DROP COLUMN "cold_runtime_hist"`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" DROP COLUMN "cold_placement_hist"`,
    );
    await queryRunner.query(`DROP INDEX "queue_broker"."worker_starts_last_at_idx"`);
    await queryRunner.query(`DROP TABLE "queue_broker"."worker_starts"`);
  }
}
