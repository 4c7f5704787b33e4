import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root, for files addressed relative to it (handlers, ASL, seed data). */
export const REPOSITORY_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
