import ipaddr from 'ipaddr.js';
import { Matches, ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * A SecretBox key ring (libs/platform/src/secrets/secret-box.ts): `kid:base64-of-32-bytes`, comma-separated, the
 * newest first. Every app that seals or opens with the ring validates it the same way.
 */
export function IsKeyRing(): PropertyDecorator {
  return Matches(/^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=)*$/, {
    message: '$property must be kid:base64-of-32-bytes, comma-separated (newest first)',
  });
}

/** The entries of a comma-separated list setting, trimmed, empty ones dropped. */
export function listSetting(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** Whether `entry` is an IPv4/IPv6 address or a CIDR block (`10.0.0.0/8`, `fd00::/8`). */
export function isAddressOrCidr(entry: string): boolean {
  if (entry.includes('/')) {
    try {
      ipaddr.parseCIDR(entry);
      return true;
    } catch {
      return false;
    }
  }
  return ipaddr.isValid(entry);
}

/** A comma-separated list of addresses and CIDR blocks (empty allowed). */
export function IsAddressList(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isAddressList',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && listSetting(value).every((entry) => isAddressOrCidr(entry)),
        defaultMessage: () =>
          '$property must be a comma-separated list of IP addresses or CIDR blocks, e.g. 10.0.0.0/8,192.168.1.20',
      },
    },
    options,
  );
}

/** The key ids of a key ring setting (`kid:material,...`), as written. */
function keyIds(ring: unknown): string[] {
  return typeof ring === 'string' ? listSetting(ring).map((entry) => entry.split(':')[0]) : [];
}

/**
 * A key ring whose key ids are none of `other`'s (another ring setting of the same config): a sealed value names
 * its key id, and the id alone must say which ring opens it (WORKER_KEY_RING apart from REGISTRY_AUTH_KEYS, ADR 30).
 */
export function KeyIdsApartFrom(other: string): PropertyDecorator {
  return ValidateBy({
    name: 'keyIdsApartFrom',
    constraints: [other],
    validator: {
      validate: (value: unknown, args) => {
        const theirs = keyIds((args?.object as Record<string, unknown> | undefined)?.[other]);
        return !keyIds(value).some((kid) => theirs.includes(kid));
      },
      defaultMessage: () => `$property must use key ids that ${other} does not use`,
    },
  });
}
