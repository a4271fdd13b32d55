import type { MigrationInterface, QueryRunner } from 'typeorm';

export class SchedulerTables1795238895412 implements MigrationInterface {
  name = 'SchedulerTables1795238895412';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."cpu_types" ("id" text NOT NULL, "display_name" text NOT NULL, "cores" integer NOT NULL, "threads_per_core" integer NOT NULL, CONSTRAINT "PK_910b917037caf7cb1306589bfe3" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."data_centers" ("id" text NOT NULL, "name" text NOT NULL, "region" text NOT NULL, CONSTRAINT "PK_9101bfd0a5974012153301b1d7e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."fleet_loads" ("sha256" text NOT NULL, "hosts" integer NOT NULL, "loaded_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_2781e60c8703aa8ca12fdc82d82" PRIMARY KEY ("sha256"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."gpu_types" ("id" text NOT NULL, "display_name" text NOT NULL, "manufacturer" text NOT NULL, "memory_in_gb" integer NOT NULL, "max_count" integer NOT NULL, "tier" text NOT NULL, CONSTRAINT "PK_d9005a7c2bb97568f2183bfeaf1" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."hosts" ("id" text NOT NULL, "data_center_id" text NOT NULL, "gpu_type_id" text, "gpu_count" integer NOT NULL, "free_gpus" integer NOT NULL, "cpu_type_id" text, "cpu_slots" integer NOT NULL, "free_cpu_slots" integer NOT NULL, "public_ip" text NOT NULL, "port_start" integer NOT NULL, "port_end" integer NOT NULL, "free_ports" integer NOT NULL, "active" boolean NOT NULL DEFAULT true, CONSTRAINT "hosts_free_ports_ck" CHECK ("free_ports" >= 0 AND "free_ports" <= "port_end" - "port_start" + 1), CONSTRAINT "hosts_free_cpu_slots_ck" CHECK ("free_cpu_slots" >= 0 AND "free_cpu_slots" <= "cpu_slots"), CONSTRAINT "hosts_free_gpus_ck" CHECK ("free_gpus" >= 0 AND "free_gpus" <= "gpu_count"), CONSTRAINT "PK_c4bcf0826e0e2847faee4da1746" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "hosts_gpu_type_idx" ON "cluster_scheduler"."hosts"  ("gpu_type_id", "data_center_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."clusters" ("id" text NOT NULL, "owner_id" text NOT NULL, "name" text NOT NULL, "type" text NOT NULL, "gpu_type_id" text NOT NULL, "gpu_count_per_pod" integer NOT NULL, "pod_count" integer NOT NULL, "data_center_id" text NOT NULL, "cidr" cidr NOT NULL, "vxlan_id" integer NOT NULL, "vxlan_port" integer NOT NULL, "image" text NOT NULL, "args" text, "disk" integer NOT NULL, "env" jsonb NOT NULL, "ports" text array NOT NULL, "start_jupyter" boolean NOT NULL, "start_ssh" boolean NOT NULL, "mounts" jsonb, "network_volume_id" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "clusters_cidr_live_excl" EXCLUDE USING gist ("cidr" inet_ops WITH &&) WHERE ("deleted_at" IS NULL), CONSTRAINT "PK_56c8e201f375e1e961dcdd6831c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "clusters_volume_idx" ON "cluster_scheduler"."clusters"  ("network_volume_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "clusters_owner_idx" ON "cluster_scheduler"."clusters"  ("owner_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "clusters_vxlan_live_uq" ON "cluster_scheduler"."clusters"  ("vxlan_id") WHERE "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."cluster_members" ("pod_id" text NOT NULL, "cluster_id" text NOT NULL, "rank" integer NOT NULL, "role" text NOT NULL, "name" text NOT NULL, "overlay_ip" inet NOT NULL, "host_id" text NOT NULL, "public_ip" text NOT NULL, "port_mappings" jsonb NOT NULL, "env" jsonb NOT NULL, "status" text NOT NULL, "status_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_f1ddf7a8132ce56ce0d1343c6b5" PRIMARY KEY ("pod_id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "cluster_members_rank_uq" ON "cluster_scheduler"."cluster_members"  ("cluster_id", "rank") `,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."reservations" ("pod_id" text NOT NULL, "owner_id" text NOT NULL, "cluster_id" text, "host_id" text NOT NULL, "data_center_id" text NOT NULL, "gpu_type_id" text, "gpu_count" integer NOT NULL, "cpu_slots" integer NOT NULL, "network_volume_id" text, "port_mappings" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_0d4dfd84dc60478d4a0637ed4f8" PRIMARY KEY ("pod_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "reservations_cluster_idx" ON "cluster_scheduler"."reservations"  ("cluster_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "reservations_host_idx" ON "cluster_scheduler"."reservations"  ("host_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "reservations_volume_idx" ON "cluster_scheduler"."reservations"  ("network_volume_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."host_ports" ("host_id" text NOT NULL, "port" integer NOT NULL, "pod_id" text NOT NULL, CONSTRAINT "host_ports_pkey" PRIMARY KEY ("host_id", "port"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "host_ports_pod_idx" ON "cluster_scheduler"."host_ports"  ("pod_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."network_volumes" ("id" text NOT NULL, "owner_id" text NOT NULL, "name" text NOT NULL, "size_gb" integer NOT NULL, "data_center_id" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_61542becc4c06e8bd6fa5093c5c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "network_volumes_owner_idx" ON "cluster_scheduler"."network_volumes"  ("owner_id", "created_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."cluster_members" ADD CONSTRAINT "FK_bd9ded267bd628dc6dd779fb566" FOREIGN KEY ("cluster_id") REFERENCES "cluster_scheduler"."clusters"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."reservations" ADD CONSTRAINT "FK_6679bd78b746f077f4152fc405e" FOREIGN KEY ("host_id") REFERENCES "cluster_scheduler"."hosts"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."host_ports" ADD CONSTRAINT "FK_659b34dd58977cc097c1f935f4e" FOREIGN KEY ("pod_id") REFERENCES "cluster_scheduler"."reservations"("pod_id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."host_ports" DROP CONSTRAINT "FK_659b34dd58977cc097c1f935f4e"`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."reservations" DROP CONSTRAINT "FK_6679bd78b746f077f4152fc405e"`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."cluster_members" DROP CONSTRAINT "FK_bd9ded267bd628dc6dd779fb566"`,
    );
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."network_volumes_owner_idx"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."network_volumes"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."host_ports_pod_idx"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."host_ports"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."reservations_volume_idx"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."reservations_host_idx"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."reservations_cluster_idx"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."reservations"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."cluster_members_rank_uq"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."cluster_members"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."clusters_vxlan_live_uq"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."clusters_owner_idx"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."clusters_volume_idx"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."clusters"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."hosts_gpu_type_idx"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."hosts"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."gpu_types"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."fleet_loads"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."data_centers"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."cpu_types"`);
  }
}
