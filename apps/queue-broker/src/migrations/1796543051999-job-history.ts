import type { MigrationInterface, QueryRunner } from 'typeorm';

export class JobHistory1796543051999 implements MigrationInterface {
  name = 'JobHistory1796543051999';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."job_history" ("id" text NOT NULL, "endpoint_id" text NOT NULL, "owner_id" text NOT NULL, "sync" boolean NOT NULL, "status" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE, "finished_at" TIMESTAMP WITH TIME ZONE NOT NULL, "result_expired_at" TIMESTAMP WITH TIME ZONE NOT NULL, "delay_time_ms" integer, "execution_time_ms" integer, "last_worker_id" text, "attempts" integer NOT NULL, "retries" integer NOT NULL, "stream_chunks" integer NOT NULL, "input_bytes" integer NOT NULL, "output_bytes" integer, "error_bytes" integer, "leases" jsonb NOT NULL, CONSTRAINT "PK_688f25ad49557eed88dbaaf5a96" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "job_history_finished_idx" ON "queue_broker"."job_history"  ("finished_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "job_history_endpoint_created_idx" ON "queue_broker"."job_history"  ("endpoint_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "jobs_endpoint_created_idx" ON "queue_broker"."jobs"  ("endpoint_id", "created_at", "id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "queue_broker"."jobs_endpoint_created_idx"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."job_history_endpoint_created_idx"`);
    await queryRunner.query(`DROP INDEX "queue_broker"."job_history_finished_idx"`);
    await queryRunner.query(`DROP TABLE "queue_broker"."job_history"`);
  }
}
