import type { MigrationInterface, QueryRunner } from 'typeorm';

export class EndpointMetrics1795492806244 implements MigrationInterface {
  name = 'EndpointMetrics1795492806244';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."metrics_cold_starts" ("worker_id" text NOT NULL, "endpoint_id" text NOT NULL, "first_poll_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_6c4dfcb741b1aadb19147073cdd" PRIMARY KEY ("worker_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "metrics_cold_starts_at_idx" ON "queue_broker"."metrics_cold_starts"  ("first_poll_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."endpoint_metric_rollups" ("endpoint_id" text NOT NULL, "step_s" integer NOT NULL, "bucket_start" TIMESTAMP WITH TIME ZONE NOT NULL, "completed" integer NOT NULL DEFAULT '0', "failed" integer NOT NULL DEFAULT '0', "cancelled" integer NOT NULL DEFAULT '0', "timed_out" integer NOT NULL DEFAULT '0', "retried" integer NOT NULL DEFAULT '0', "delay_hist" integer array NOT NULL DEFAULT '{}', "exec_hist" integer array NOT NULL DEFAULT '{}', "cold_starts" integer NOT NULL DEFAULT '0', "cold_hist" integer array NOT NULL DEFAULT '{}', "queue_depth" integer NOT NULL DEFAULT '0', "oldest_age_ms" bigint NOT NULL DEFAULT '0', "workers_running" integer NOT NULL DEFAULT '0', "workers_idle" integer NOT NULL DEFAULT '0', "workers_initializing" integer NOT NULL DEFAULT '0', "workers_throttled" integer NOT NULL DEFAULT '0', "workers_unhealthy" integer NOT NULL DEFAULT '0', "webhooks_delivered" integer NOT NULL DEFAULT '0', "webhooks_failed" integer NOT NULL DEFAULT '0', "webhooks_gave_up" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_5ced59f75b80e1f0311dbfc743b" PRIMARY KEY ("endpoint_id", "step_s", "bucket_start"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "endpoint_metric_rollups_age_idx" ON "queue_broker"."endpoint_metric_rollups"  ("step_s", "bucket_start") `,
    );
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."metrics_cursors" ("name" text NOT NULL, "stream_seq" bigint NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_e28df9599dc7cd958df6e14b9d7" PRIMARY KEY ("name"))`,
    );
    // Adds two fixed-bucket histograms (libs/contracts latency-histogram.ts) bucket by bucket, for the upserts.
    await queryRunner.query(
      `CREATE FUNCTION "queue_broker"."metrics_hist_add"(a integer[], b integer[]) RETURNS integer[]
       LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
         SELECT COALESCE(array_agg(COALESCE(x, 0) + COALESCE(y, 0) ORDER BY i), '{}')
         FROM unnest(a, b) WITH ORDINALITY AS u(x, y, i) $$`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION "queue_broker"."metrics_hist_add"(integer[], integer[])`);
    await queryRunner.query(`DROP TABLE "queue_broker"."metrics_cursors"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."endpoint_metric_rollups_age_idx"`);
    await queryRunner.query(`DROP TABLE "queue_broker"."endpoint_metric_rollups"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."metrics_cold_starts_at_idx"`);
    await queryRunner.query(`DROP TABLE "queue_broker"."metrics_cold_starts"`);
  }
}
