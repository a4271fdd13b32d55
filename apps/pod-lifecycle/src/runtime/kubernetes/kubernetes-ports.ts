import type { V1ContainerPort } from '@kubernetes/client-node';

/** `["8888/http", "22/tcp"]` → container ports (http is TCP; udp stays UDP). */
export function containerPorts(ports: string[]): V1ContainerPort[] {
  const seen = new Set<string>();
  const result: V1ContainerPort[] = [];
  for (const spec of ports) {
    const [portText, kind = 'tcp'] = spec.split('/');
    const port = Number(portText);
    if (!Number.isInteger(port) || port < 1 || port > 65535) continue;
    const protocol = kind.toLowerCase() === 'udp' ? 'UDP' : 'TCP';
    if (seen.has(`${port}/${protocol}`)) continue;
    seen.add(`${port}/${protocol}`);
    result.push({
      containerPort: port,
      protocol,
      name: `${kind.toLowerCase() === 'http' ? 'http' : protocol.toLowerCase()}-${port}`,
    });
  }
  return result;
}
