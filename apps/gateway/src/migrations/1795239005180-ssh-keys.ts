import type { MigrationInterface, QueryRunner } from 'typeorm';

export class SshKeys1795239005180 implements MigrationInterface {
  name = 'SshKeys1795239005180';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gateway"."ssh_keys" ("id" text NOT NULL, "user_id" text NOT NULL, "name" text NOT NULL, "type" text NOT NULL, "fingerprint" text NOT NULL, "public_key" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_8d68194272e979ab2d77700b1a4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ssh_keys_user_fingerprint_uq" ON "gateway"."ssh_keys"  ("user_id", "fingerprint") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "gateway"."ssh_keys_user_fingerprint_uq"`);
    await queryRunner.query(`DROP TABLE "gateway"."ssh_keys"`);
  }
}
