import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ConsoleSessions1796508244918 implements MigrationInterface {
  name = 'ConsoleSessions1796508244918';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gateway"."console_sessions" ("id_hash" text NOT NULL, "user_id" text NOT NULL, "account_id" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_916f2095a1ec3f58318a2039e1d" PRIMARY KEY ("id_hash"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "console_sessions_user_idx" ON "gateway"."console_sessions"  ("user_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "gateway"."sso_logins" ("id_hash" text NOT NULL, "return_to" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_1a0c6064e1c2fb805a1784f277d" PRIMARY KEY ("id_hash"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "gateway"."sso_logins"`);
    await queryRunner.query(`DROP INDEX "gateway"."console_sessions_user_idx"`);
    await queryRunner.query(`DROP TABLE "gateway"."console_sessions"`);
  }
}
