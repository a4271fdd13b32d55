import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ROOT } from '../support/paths.js';
import { GPUCP, runGpucp } from './gpucp.e2e-helpers.js';

/** Debian's bash-completion: the generated bash script uses its `_get_comp_words_by_ref`, as most scripts do. */
const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';

/**
 * `gpucp completion bash` loaded into a real bash, with `gpucp` on the PATH as an installed CLI is: each Tab runs the
 * registered function with COMP_WORDS and COMP_CWORD set as bash sets them, which asks `gpucp complete -- …`.
 */
describe('gpucp completion', () => {
  let bin: string;

  beforeAll(async () => {
    if (!existsSync(BASH_COMPLETION)) {
      const infra = (await import(pathToFileURL(join(ROOT, 'scripts', 'lib', 'infra-process.mjs')).href)) as {
        canAptInstall(): boolean;
        aptInstall(pkg: string): Promise<void>;
      };
      if (!infra.canAptInstall()) {
        throw new Error(`${BASH_COMPLETION} is missing: apt-get install bash-completion`);
      }
      await infra.aptInstall('bash-completion');
    }
    bin = mkdtempSync(join(tmpdir(), 'gpucp-bin-'));
    writeFileSync(join(bin, 'gpucp'), `#!/bin/sh\nexec "${process.execPath}" "${GPUCP}" "$@"\n`);
    chmodSync(join(bin, 'gpucp'), 0o755);
  }, 300_000);

  /** What bash offers after `line` (the word under the cursor last, '' after a space). */
  async function complete(line: string): Promise<string[]> {
    const words = line.split(' ');
    const script = [
      `source ${BASH_COMPLETION}`,
      'source <(gpucp completion bash)',
      'fn=$(complete -p gpucp | sed -E "s/.* -F ([^ ]+) .*/\\1/")',
      `COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}`,
      `COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}`,
      `"$fn" gpucp ${JSON.stringify(words.at(-1))} ${JSON.stringify(words.at(-2))} 2>/dev/null`,
      'printf "%s\\n" "${COMPREPLY[@]}"',
    ].join('\n');
    const { stdout } = await promisify(execFile)('bash', ['-c', script], {
      env: { PATH: `${bin}:${process.env.PATH}`, HOME: bin },
    });
    return stdout.split('\n').filter(Boolean).sort();
  }

  it('completes commands, subcommands and an option’s choices in bash', async () => {
    expect(await complete('gpucp te')).toEqual(['templates']);
    expect(await complete('gpucp v')).toEqual(['volumes']);
    expect(await complete('gpucp templates ')).toEqual(['create', 'delete', 'get', 'help', 'list', 'update']);
    expect(await complete('gpucp volumes re')).toEqual(['resize']);
    expect(await complete('gpucp keys create --scope ')).toEqual(['endpoints', 'full', 'read']);
    expect(await complete('gpucp pods create --wa')).toEqual(['--wait']);
  });

  it('prints zsh and fish scripts that ask gpucp itself, and refuses an unknown shell', async () => {
    for (const shell of ['zsh', 'fish']) {
      const run = await runGpucp('http://127.0.0.1:1', '', ['completion', shell]);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toContain('gpucp complete --');
    }
    expect((await runGpucp('http://127.0.0.1:1', '', ['completion', 'tcsh'])).code).toBe(2);
  });
});
