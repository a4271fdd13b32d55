import { fileURLToPath } from 'node:url';

/** The repository root (where package.json and dist/ are), whatever the current directory. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
