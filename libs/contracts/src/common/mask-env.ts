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

/**
 * The env an update asks for, read against the stored one: clients send back the env they read, where
 * secret-looking values are masked, so a masked value keeps the value it stands for (a mask for a name not stored
 * is taken as sent).
 */
export function unmaskEnv(
  sent: Record<string, string>,
  stored: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(sent).map(([name, value]) => [
      name,
      value === MASK && Object.hasOwn(stored, name) ? stored[name] : value,
    ]),
  );
}
