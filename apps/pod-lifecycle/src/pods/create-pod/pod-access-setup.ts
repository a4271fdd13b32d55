import { DomainError, ErrorCode, deriveId, type CreatePodCommand } from '@app/contracts';

const SSH_PORT = '22/tcp';
const JUPYTER_PORT = '8888/http';

/**
 * `startSsh` and `startJupyter` of a create (management API v2), as clusters apply them to their members: the
 * port is exposed unless the pod already exposes that number, PUBLIC_KEY carries the account's keys (one a line)
 * and JUPYTER_PASSWORD is derived from the command id (so a replay sets the same one); a variable the request
 * sets itself wins. startSsh without a registered key is refused (400), as for clusters.
 */
export function withAccessSetup(
  payload: CreatePodCommand,
  commandId: string,
  ports: string[],
  env: Record<string, string>,
): { ports: string[]; env: Record<string, string> } {
  const out = { ports: [...ports], env: { ...env } };
  const has = (port: string) => out.ports.some((p) => p.split('/')[0] === port.split('/')[0]);
  if (payload.startSsh) {
    const keys = payload.sshPublicKeys ?? [];
    if (!keys.length) {
      throw new DomainError(
        ErrorCode.BadRequest,
        'startSsh needs an SSH public key on your account: add one with POST /v1/user/ssh-keys',
      );
    }
    if (!has(SSH_PORT)) out.ports.push(SSH_PORT);
    out.env.PUBLIC_KEY ??= keys.join('\n');
  }
  if (payload.startJupyter) {
    if (!has(JUPYTER_PORT)) out.ports.push(JUPYTER_PORT);
    out.env.JUPYTER_PASSWORD ??= deriveId(commandId, 'jupyter', 24);
  }
  return out;
}
