import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795237945357 implements MigrationInterface {
  name = 'Initial1795237945357';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pod_lifecycle"."processed_commands" ("command_id" text NOT NULL, "subject" text NOT NULL, "outcome" jsonb NOT NULL, "issued_at" TIMESTAMP WITH TIME ZONE NOT NULL, "processed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "correlation_id" text NOT NULL, "actor_user_id" text NOT NULL, CONSTRAINT "PK_1bca7b55cd4a516e18eb7851f47" PRIMARY KEY ("command_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "pod_lifecycle"."outbox" ("id" text NOT NULL, "seq" BIGSERIAL NOT NULL, "subject" text NOT NULL, "payload" jsonb NOT NULL, "correlation_id" text NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "published_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_340ab539f309f03bdaa14aa7649" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "outbox_unpublished_idx" ON "pod_lifecycle"."outbox"  ("seq") WHERE published_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "pod_lifecycle"."registry_auths" ("id" text NOT NULL, "owner_id" text NOT NULL, "name" text NOT NULL, "username" text NOT NULL, "password_sealed" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_0187cc9384e199279897d3a061e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "registry_auths_owner_name_uq" ON "pod_lifecycle"."registry_auths"  ("owner_id", "name") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."registry_auths_owner_name_uq"`);
    await queryRunner.query(`DROP TABLE "pod_lifecycle"."registry_auths"`);
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."outbox_unpublished_idx"`);
    await queryRunner.query(`DROP TABLE "pod_lifecycle"."outbox"`);
    await queryRunner.query(`DROP TABLE "pod_lifecycle"."processed_commands"`);
  }
}
