import type { MigrationInterface, QueryRunner } from 'typeorm';

export class PodsAndTemplates1795238779844 implements MigrationInterface {
  name = 'PodsAndTemplates1795238779844';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pod_lifecycle"."pods" ("id" text NOT NULL, "owner_id" text NOT NULL, "name" text NOT NULL, "image" text NOT NULL, "args" text, "env" jsonb NOT NULL, "ports" jsonb NOT NULL, "port_mappings" jsonb NOT NULL, "public_ip" text, "container_disk_gb" integer NOT NULL, "volume_mount_path" text, "gpu_type_id" text, "gpu_count" integer NOT NULL, "cpu_type_id" text, "host_id" text, "data_center_id" text, "cluster_id" text, "cluster_rank" integer, "cluster_role" text, "overlay_ip" text, "mounts" jsonb, "template_id" text, "registry_auth_id" text, "network_volume_id" text, "status" text NOT NULL, "desired_status" text NOT NULL, "status_reason" text, "generation" integer NOT NULL, "disk_epoch" integer NOT NULL, "last_status_change" TIMESTAMP WITH TIME ZONE NOT NULL, "last_started_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_b00bbc2c7fb41627be2b169f0dd" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "pods_registry_auth_idx" ON "pod_lifecycle"."pods"  ("registry_auth_id") `,
    );
    await queryRunner.query(`CREATE INDEX "pods_template_idx" ON "pod_lifecycle"."pods"  ("template_id") `);
    await queryRunner.query(`CREATE INDEX "pods_host_idx" ON "pod_lifecycle"."pods"  ("host_id") `);
    await queryRunner.query(
      `CREATE INDEX "pods_cluster_idx" ON "pod_lifecycle"."pods"  ("cluster_id", "cluster_rank") `,
    );
    await queryRunner.query(
      `CREATE INDEX "pods_owner_idx" ON "pod_lifecycle"."pods"  ("owner_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "pod_lifecycle"."templates" ("id" text NOT NULL, "owner_id" text NOT NULL, "name" text NOT NULL, "image" text NOT NULL, "args" text NOT NULL, "env" jsonb NOT NULL, "ports" jsonb NOT NULL, "container_disk_gb" integer NOT NULL, "volume_mount_path" text, "is_serverless" boolean NOT NULL, "registry_auth_id" text, "readme" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_515948649ce0bbbe391de702ae5" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "templates_registry_auth_idx" ON "pod_lifecycle"."templates"  ("registry_auth_id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "templates_owner_name_uq" ON "pod_lifecycle"."templates"  ("owner_id", "name") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."templates_owner_name_uq"`);
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."templates_registry_auth_idx"`);
    await queryRunner.query(`DROP TABLE "pod_lifecycle"."templates"`);
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."pods_owner_idx"`);
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."pods_cluster_idx"`);
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."pods_host_idx"`);
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."pods_template_idx"`);
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."pods_registry_auth_idx"`);
    await queryRunner.query(`DROP TABLE "pod_lifecycle"."pods"`);
  }
}
