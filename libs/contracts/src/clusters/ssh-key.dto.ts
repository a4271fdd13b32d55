import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';

/** An OpenSSH public key line: `<type> <base64> [comment]`. The gateway also checks the blob names the same type. */
export const SSH_PUBLIC_KEY =
  /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com) [A-Za-z0-9+/]+={0,3}( [^\r\n]*)?$/;

/** Body of `POST /v1/user/ssh-keys`: one of the account's SSH public keys (injected as PUBLIC_KEY by startSsh). */
export class CreateSshKeyDto {
  @IsString()
  @MinLength(1)
  @MaxLength(16 * 1024)
  @Matches(SSH_PUBLIC_KEY, {
    message: 'publicKey must be an OpenSSH public key line such as "ssh-ed25519 AAAA... you@host"',
  })
  publicKey: string;

  /** A label; defaults to the key's comment. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  name?: string;
}

export interface SshKeyView {
  id: string;
  name: string;
  /** `ssh-ed25519`, `ssh-rsa`, ... */
  type: string;
  /** `SHA256:<base64>` as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  publicKey: string;
  createdAt: string;
}

/** The most keys one account may register (every key travels into each pod's PUBLIC_KEY). */
export const MAX_SSH_KEYS = 10;

/**
 * Body of `PUT /v2/account/ssh-keys`, and its answer (and `GET`'s): the account's whole set of public keys as
 * authorized_keys lines. A PUT replaces the set; `[]` removes every key.
 */
export class SshKeySetDto {
  @IsArray()
  @ArrayMaxSize(MAX_SSH_KEYS)
  @IsString({ each: true })
  @MaxLength(16 * 1024, { each: true })
  @Matches(SSH_PUBLIC_KEY, {
    each: true,
    message: 'each key must be an OpenSSH public key line such as "ssh-ed25519 AAAA... you@host"',
  })
  keys: string[];
}

export interface SshKeySet {
  keys: string[];
}
