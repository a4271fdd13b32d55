import type { MigrationInterface, QueryRunner } from 'typeorm';

export class JobsAndWorkers1795239730122 implements MigrationInterface {
  name = 'JobsAndWorkers1795239730122';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."endpoint_job_counters" ("endpoint_id" text NOT NULL, "bucket_start" TIMESTAMP WITH TIME ZONE NOT NULL, "completed" integer NOT NULL DEFAULT '0', "failed" integer NOT NULL DEFAULT '0', "retried" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_5ec714937fe82c014fc6c865356" PRIMARY KEY ("endpoint_id", "bucket_start"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."ignored_results" ("id" text NOT NULL, "job_id" text NOT NULL, "worker_id" text NOT NULL, "kind" text NOT NULL, "reason" text NOT NULL, "received_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_daf9925e7a7846746b9acf70860" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ignored_results_job_idx" ON "queue_broker"."ignored_results"  ("job_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."job_attempts" ("id" text NOT NULL, "job_id" text NOT NULL, "attempt" integer NOT NULL, "worker_id" text NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "ended_at" TIMESTAMP WITH TIME ZONE, "outcome" text, CONSTRAINT "PK_61deab46f06c9ab9d5585b28423" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "job_attempts_job_idx" ON "queue_broker"."job_attempts"  ("job_id", "attempt") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "job_attempts_open_uq" ON "queue_broker"."job_attempts"  ("job_id") WHERE ended_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."job_stream_chunks" ("job_id" text NOT NULL, "seq" integer NOT NULL, "output" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_46903a23340941b5d12d874d689" PRIMARY KEY ("job_id", "seq"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."jobs" ("id" text NOT NULL, "endpoint_id" text NOT NULL, "owner_id" text NOT NULL, "sync" boolean NOT NULL, "status" text NOT NULL, "input" jsonb NOT NULL, "output" jsonb, "has_output" boolean NOT NULL DEFAULT false, "error" text, "webhook" text, "s3_config" jsonb, "execution_timeout_ms" integer NOT NULL, "ttl_ms" bigint, "low_priority" boolean NOT NULL DEFAULT false, "retention_ms" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "queued_at" TIMESTAMP WITH TIME ZONE NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE, "finished_at" TIMESTAMP WITH TIME ZONE, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "delay_time_ms" integer, "execution_time_ms" integer, "lease_worker_id" text, "leased_at" TIMESTAMP WITH TIME ZONE, "last_worker_id" text, "attempts" integer NOT NULL DEFAULT '0', "retries" integer NOT NULL DEFAULT '0', "stream_seq" integer NOT NULL DEFAULT '0', "stream_read" integer NOT NULL DEFAULT '0', "stop_pending" boolean NOT NULL DEFAULT false, "stop_delivered_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "jobs_lease_ck" CHECK ((status = 'IN_PROGRESS') = (lease_worker_id IS NOT NULL)), CONSTRAINT "jobs_status_ck" CHECK (status IN ('IN_QUEUE','IN_PROGRESS','COMPLETED','FAILED','CANCELLED','TIMED_OUT')), CONSTRAINT "PK_cf0a6c42b72fcc7f7c237def345" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "jobs_endpoint_status_idx" ON "queue_broker"."jobs"  ("endpoint_id", "status") `,
    );
    await queryRunner.query(`CREATE INDEX "jobs_expiry_idx" ON "queue_broker"."jobs"  ("expires_at") `);
    await queryRunner.query(
      `CREATE INDEX "jobs_stop_idx" ON "queue_broker"."jobs"  ("last_worker_id") WHERE stop_pending`,
    );
    await queryRunner.query(
      `CREATE INDEX "jobs_lease_idx" ON "queue_broker"."jobs"  ("lease_worker_id") WHERE lease_worker_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "jobs_queue_idx" ON "queue_broker"."jobs"  ("endpoint_id", "queued_at", "id") WHERE status = 'IN_QUEUE'`,
    );
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."webhook_deliveries" ("id" text NOT NULL, "job_id" text NOT NULL, "url" text NOT NULL, "body" jsonb NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL, "locked_until" TIMESTAMP WITH TIME ZONE, "delivered_at" TIMESTAMP WITH TIME ZONE, "gave_up_at" TIMESTAMP WITH TIME ZONE, "last_error" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_due_idx" ON "queue_broker"."webhook_deliveries"  ("next_attempt_at") WHERE delivered_at IS NULL AND gave_up_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."workers" ("id" text NOT NULL, "endpoint_id" text NOT NULL, "registered_at" TIMESTAMP WITH TIME ZONE NOT NULL, "last_seen_at" TIMESTAMP WITH TIME ZONE, "first_poll_at" TIMESTAMP WITH TIME ZONE, "unhealthy" boolean NOT NULL DEFAULT false, "unhealthy_reason" text, "lost_at" TIMESTAMP WITH TIME ZONE, "recycle_requested" boolean NOT NULL DEFAULT false, "version" text, CONSTRAINT "PK_e950c9aba3bd84a4f193058d838" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "workers_endpoint_idx" ON "queue_broker"."workers"  ("endpoint_id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "queue_broker"."workers_endpoint_idx"`);
    await queryRunner.query(`DROP TABLE "queue_broker"."workers"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."webhook_deliveries_due_idx"`);
    await queryRunner.query(`DROP TABLE "queue_broker"."webhook_deliveries"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."jobs_queue_idx"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."jobs_lease_idx"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."jobs_stop_idx"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."jobs_expiry_idx"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."jobs_endpoint_status_idx"`);
    await queryRunner.query(`DROP TABLE "queue_broker"."jobs"`);
    await queryRunner.query(`DROP TABLE "queue_broker"."job_stream_chunks"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."job_attempts_open_uq"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."job_attempts_job_idx"`);
    await queryRunner.query(`DROP TABLE "queue_broker"."job_attempts"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."ignored_results_job_idx"`);
    await queryRunner.query(`DROP TABLE "queue_broker"."ignored_results"`);
    await queryRunner.query(`DROP TABLE "queue_broker"."endpoint_job_counters"`);
  }
}
