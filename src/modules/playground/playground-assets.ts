import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const PLAYGROUND_PATH = '/playground/';

/**
 * Where the build put the page (`scripts/build-playground.mjs` → dist/playground): next to the
 * compiled service, or, when the service runs from sources (tests), in the checkout's dist/.
 */
export function findPlaygroundAssets(from = __dirname): string | null {
  const candidates = [join(from, '..', '..', '..', 'playground'), join(from, '..', '..', '..', 'dist', 'playground')];
  return candidates.find((dir) => existsSync(join(dir, 'js', 'app.js'))) ?? null;
}

/**
 * Serves the playground as static files. A plain Fastify route, not a Nest controller: it is public
 * like /docs (the page holds no data; every call it makes needs the key its user pastes).
 * Returns false when the assets were not built (the service runs without the page).
 */
export function servePlayground(app: NestFastifyApplication, root = findPlaygroundAssets()): boolean {
  if (!root) return false;
  app.useStaticAssets({
    root,
    prefix: PLAYGROUND_PATH,
    redirect: true, // /playground → /playground/
    decorateReply: false, // Swagger UI's static files already decorate the reply
    index: ['index.html'],
    cacheControl: true,
    maxAge: 0, // a rebuilt page must not be served stale
  });
  return true;
}
