import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';

/** The cluster's configuration: from a kubeconfig file when one is named, else the in-cluster service account. */
export function kubernetesConfig(kubeconfigPath: string | undefined): KubeConfig {
  const config = new KubeConfig();
  if (kubeconfigPath) config.loadFromFile(kubeconfigPath);
  else config.loadFromCluster();
  return config;
}

/** The core API client of that configuration. */
export function kubernetesCoreApi(config: KubeConfig): CoreV1Api {
  return config.makeApiClient(CoreV1Api);
}

/** The API answered this HTTP status (404 when deleting what is gone, 409 when creating what exists). */
export function isApiStatus(error: unknown, code: number): boolean {
  return error instanceof ApiException && error.code === code;
}
