import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

/** The core API client: from a kubeconfig file when one is named, else the in-cluster service account. */
export function kubernetesCoreApi(kubeconfigPath: string | undefined): CoreV1Api {
  const config = new KubeConfig();
  if (kubeconfigPath) config.loadFromFile(kubeconfigPath);
  else config.loadFromCluster();
  return config.makeApiClient(CoreV1Api);
}
