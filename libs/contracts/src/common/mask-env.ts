/** Names whose values are secrets by the look of them. */
export const SECRET_NAME = /(SECRET|PASSWORD|PASSWD|TOKEN|KEY|CREDENTIAL)/i;

export const MASK = '********';

/**
 * The env as users see it (pods and templates always; an endpoint's to keys that may not manage it): values of
 * secret-looking names replaced by a mask (empty values stay empty).
 */
export function maskEnv(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [name, SECRET_NAME.test(name) && value !== '' ? MASK : value]),
  );
}
