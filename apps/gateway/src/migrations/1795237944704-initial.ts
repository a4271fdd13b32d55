import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795237944704 implements MigrationInterface {
  name = 'Initial1795237944704';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gateway"."processed_commands" ("command_id" text NOT NULL, "subject" text NOT NULL, "outcome" jsonb NOT NULL, "issued_at" TIMESTAMP WITH TIME ZONE NOT NULL, "processed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "correlation_id" text NOT NULL, "actor_user_id" text NOT NULL, CONSTRAINT "PK_1bca7b55cd4a516e18eb7851f47" PRIMARY KEY ("command_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "gateway"."outbox" ("id" text NOT NULL, "seq" BIGSERIAL NOT NULL, "subject" text NOT NULL, "payload" jsonb NOT NULL, "correlation_id" text NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "published_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_340ab539f309f03bdaa14aa7649" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "outbox_unpublished_idx" ON "gateway"."outbox"  ("seq") WHERE published_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "gateway"."api_keys" ("id" text NOT NULL, "user_id" text NOT NULL, "name" text NOT NULL, "key_prefix" text NOT NULL, "key_hash" text NOT NULL, "scope" text NOT NULL, "endpoint_ids" text array NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "api_keys_user_idx" ON "gateway"."api_keys"  ("user_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "api_keys_hash_idx" ON "gateway"."api_keys"  ("key_hash") `);
    await queryRunner.query(
      `CREATE TABLE "gateway"."users" ("id" text NOT NULL, "name" text NOT NULL, "rate_limit_exempt" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "UQ_51b8b26ac168fbe7d6f5653e6cf" UNIQUE ("name"), CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "gateway"."users"`);
    await queryRunner.query(`DROP INDEX "gateway"."api_keys_hash_idx"`);
    await queryRunner.query(`DROP INDEX "gateway"."api_keys_user_idx"`);
    await queryRunner.query(`DROP TABLE "gateway"."api_keys"`);
    await queryRunner.query(`DROP INDEX "gateway"."outbox_unpublished_idx"`);
    await queryRunner.query(`DROP TABLE "gateway"."outbox"`);
    await queryRunner.query(`DROP TABLE "gateway"."processed_commands"`);
  }
}
