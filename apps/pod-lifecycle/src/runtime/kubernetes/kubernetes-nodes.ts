import { CoreV1Api, Watch, type KubeConfig } from '@kubernetes/client-node';
import type { NodeSource } from './kubernetes-node-watch.js';

/** How long the API server keeps one watch open before ending it cleanly (it is then resumed), in seconds. */
const WATCH_TIMEOUT_S = 300;

/**
 * The cluster's nodes through the API (`GET /api/v1/nodes`, then `?watch=true&resourceVersion=…` with bookmarks).
 * The service account needs `list` and `watch` on nodes (a ClusterRole: deploy/runtime/kubernetes).
 */
export function kubernetesNodes(config: KubeConfig): NodeSource {
  const api = config.makeApiClient(CoreV1Api);
  const watcher = new Watch(config);
  return {
    async list() {
      const list = await api.listNode();
      return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? '0' };
    },
    watch(resourceVersion, onEvent, onEnd) {
      return watcher.watch(
        '/api/v1/nodes',
        { resourceVersion, allowWatchBookmarks: true, timeoutSeconds: WATCH_TIMEOUT_S },
        onEvent,
        onEnd,
      );
    },
  };
}
