// The documents of runpod-python (github.com/runpod/runpod-python), byte for byte as its generators write them for
// the arguments named; each cites the SDK file and function.

/** runpod/api/queries/gpus.py QUERY_GPU_TYPES (ctl_commands.py get_gpus). */
export const GET_GPUS = `
query GpuTypes {
  gpuTypes {
    id
    displayName
    memoryInGb
  }
}
`;

/** runpod/api/queries/gpus.py generate_gpu_query("NVIDIA RTX A4000", 1) (get_gpu, which create_pod calls first). */
export const GET_GPU = `
    query GpuTypes {
      gpuTypes(input: {id: "NVIDIA RTX A4000"}) {
        maxGpuCount
        id
        displayName
        manufacturer
        memoryInGb
        cudaCores
        secureCloud
        communityCloud
        securePrice
        communityPrice
        oneMonthPrice
        threeMonthPrice
        oneWeekPrice
        communitySpotPrice
        secureSpotPrice
        lowestPrice(input: {gpuCount: 1}) {
          minimumBidPrice
          uninterruptablePrice
        }
      }
    }
    `;

/**
 * runpod/api/mutations/pods.py generate_pod_deployment_mutation, as ctl_commands.py create_pod calls it for
 * create_pod("sdk-gpu", "runpod/base:0.6.2", "NVIDIA RTX A4000") (its defaults: cloud_type ALL, gpu_count 1,
 * volume_in_gb 0, min_vcpu_count 1, min_memory_in_gb 1, docker_args "", container_disk_in_gb 10,
 * volume_mount_path /runpod-volume).
 */
export const CREATE_GPU_POD = `
    mutation {
      podFindAndDeployOnDemand(
        input: {
          name: "sdk-gpu", imageName: "runpod/base:0.6.2", cloudType: ALL, startSsh: true, gpuTypeId: "NVIDIA RTX A4000", supportPublicIp: true, gpuCount: 1, volumeInGb: 0, minVcpuCount: 1, minMemoryInGb: 1, dataCenterId: null, dockerArgs: "", containerDiskInGb: 10, volumeMountPath: "/runpod-volume"
        }
      ) {
        id
        imageName
        env
        machineId
        machine {
          podHostId
        }
      }
    }
    `;

/**
 * The same generator for create_pod("sdk-cpu", "runpod/base:0.6.2-cpu", instance_id="cpu3c-2-4"): a CPU pod
 * (no gpu_type_id), the template forced to "runpod-ubuntu".
 */
export const CREATE_CPU_POD = `
    mutation {
      deployCpuPod(
        input: {
          name: "sdk-cpu", imageName: "runpod/base:0.6.2-cpu", cloudType: ALL, startSsh: true, instanceId: "cpu3c-2-4", dataCenterId: null, dockerArgs: "", containerDiskInGb: 10, volumeMountPath: "/runpod-volume", templateId: "runpod-ubuntu"
        }
      ) {
        id
        imageName
        env
        machineId
        machine {
          podHostId
        }
      }
    }
    `;

/** The same for create_pod("sdk-cpu-any", "runpod/base:0.6.2-cpu"): no instanceId at all. */
export const CREATE_CPU_POD_ANY = `
    mutation {
      deployCpuPod(
        input: {
          name: "sdk-cpu-any", imageName: "runpod/base:0.6.2-cpu", cloudType: ALL, startSsh: true, dataCenterId: null, dockerArgs: "", containerDiskInGb: 10, volumeMountPath: "/runpod-volume", templateId: "runpod-ubuntu"
        }
      ) {
        id
        imageName
        env
        machineId
        machine {
          podHostId
        }
      }
    }
    `;

/**
 * runpod/api/mutations/templates.py generate_pod_template for create_template("sdk-template",
 * "runpod/base:0.6.2", "sleep infinity"): it always sends volumeInGb (0 by default).
 */
export const CREATE_TEMPLATE = `
    mutation {
        saveTemplate(
            input: {
                name: "sdk-template", imageName: "runpod/base:0.6.2", dockerArgs: "sleep infinity", containerDiskInGb: 10, volumeInGb: 0, ports: "", env: [], isServerless: false, containerRegistryAuthId : "", startSsh: true, isPublic: false, readme: ""
            }
        ) {
            id
            name
            imageName
            dockerArgs
            containerDiskInGb
            volumeInGb
            volumeMountPath
            ports
            env {
                key
                value
            }
            isServerless
        }
    }
    `;

/** runpod/api/queries/pods.py generate_pod_query(pod_id) (ctl_commands.py get_pod). */
export const GET_POD = (podId: string) => `
    query pod {
        pod(input: {podId: "${podId}"}) {
            id
            containerDiskInGb
            costPerHr
            desiredStatus
            dockerArgs
            dockerId
            env
            gpuCount
            imageName
            lastStatusChange
            machineId
            memoryInGb
            name
            podType
            port
            ports
            uptimeSeconds
            vcpuCount
            volumeInGb
            volumeMountPath
            runtime {
                ports {
                    ip
                    isIpPublic
                    privatePort
                    publicPort
                    type
                }
            }
            machine {
                gpuDisplayName
            }
        }
    }
    `;
