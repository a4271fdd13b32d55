import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { REACT_ARIA_INJECTED_STYLES, REACT_ARIA_STYLE_HASHES } from './console-csp.js';
import { CONSOLE_SECURITY_HEADERS } from './console-routes.setup.js';

/** The installed react-aria's source of one module (under dist/private/). */
function reactAriaSource(module: string): string {
  const require = createRequire(join(process.cwd(), 'package.json'));
  const root = dirname(require.resolve('react-aria/package.json'));
  return readFileSync(join(root, 'dist/private', `${module}.mjs`), 'utf8');
}

/** The text of each `style.textContent = \`…\`.trim()` of a module, its constants filled in as the browser sees it. */
function injectedStyles(source: string): string[] {
  const constants = new Map(
    [...source.matchAll(/const (\$\w+\$var\$\w+) = '([^']*)';/g)].map((m) => [m[1], m[2]] as const),
  );
  return [...source.matchAll(/style\.textContent = `([\s\S]*?)`\.trim\(\)/g)].map((m) =>
    m[1]
      .replace(/\$\{([^}]+)\}/g, (_, name: string) => {
        const value = constants.get(name.trim());
        if (value === undefined) throw new Error(`unknown constant ${name} in an injected style`);
        return value;
      })
      .trim(),
  );
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe("the console CSP's hashes of React Aria's injected stylesheets", () => {
  it('are the texts the installed react-aria injects (an upgrade that changes them fails here)', () => {
    expect(injectedStyles(reactAriaSource('interactions/usePress'))).toEqual([
      REACT_ARIA_INJECTED_STYLES.pressable,
    ]);
    expect(injectedStyles(reactAriaSource('overlays/usePreventScroll'))).toEqual([
      REACT_ARIA_INJECTED_STYLES.preventScroll,
    ]);
  });

  it('are the SHA-256 of those texts, and the policy allows exactly them: no unsafe-inline', () => {
    expect(Object.values(REACT_ARIA_INJECTED_STYLES).map(sha256)).toEqual([...REACT_ARIA_STYLE_HASHES]);
    const styleSrc = CONSOLE_SECURITY_HEADERS['content-security-policy']
      .split('; ')
      .find((directive) => directive.startsWith('style-src '));
    expect(styleSrc).toBe(`style-src 'self' ${REACT_ARIA_STYLE_HASHES.join(' ')}`);
    expect(CONSOLE_SECURITY_HEADERS['content-security-policy']).not.toContain('unsafe');
  });
});
