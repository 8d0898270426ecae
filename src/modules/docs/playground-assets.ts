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
  // Relative, so it also holds behind a proxy that serves the service under a path prefix.
  app
    .getHttpAdapter()
    .getInstance()
    .get(PLAYGROUND_PATH.slice(0, -1), (_request, reply) => reply.redirect('playground/', 301));
  app.useStaticAssets({
    root,
    prefix: PLAYGROUND_PATH,
    decorateReply: false, // Swagger UI's static files already decorate the reply
    index: ['index.html'],
    cacheControl: true,
    maxAge: 0, // a rebuilt page must not be served stale
  });
  return true;
}
