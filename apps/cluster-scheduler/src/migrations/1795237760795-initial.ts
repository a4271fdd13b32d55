import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795237760795 implements MigrationInterface {
  name = 'Initial1795237760795';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."processed_commands" ("command_id" text NOT NULL, "subject" text NOT NULL, "outcome" jsonb NOT NULL, "issued_at" TIMESTAMP WITH TIME ZONE NOT NULL, "processed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "correlation_id" text NOT NULL, "actor_user_id" text NOT NULL, CONSTRAINT "PK_1bca7b55cd4a516e18eb7851f47" PRIMARY KEY ("command_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."outbox" ("id" text NOT NULL, "seq" BIGSERIAL NOT NULL, "subject" text NOT NULL, "payload" jsonb NOT NULL, "correlation_id" text NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "published_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_340ab539f309f03bdaa14aa7649" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "outbox_unpublished_idx" ON "cluster_scheduler"."outbox"  ("seq") WHERE published_at IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."outbox_unpublished_idx"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."outbox"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."processed_commands"`);
  }
}
