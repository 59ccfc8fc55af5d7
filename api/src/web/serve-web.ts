import { join } from 'node:path';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { API_PREFIX } from '@taco/protocol';
import express, { type NextFunction, type Request, type Response } from 'express';

const HASHED_ASSETS = '/assets/';

/**
 * Serves the built web client: its files, and `index.html` for every other GET outside the API
 * (`/`, `/a`, `/r/:room_id` and unknown pages, which the client routes itself).
 */
export function serveWeb(app: NestExpressApplication, dist: string): void {
  const index = join(dist, 'index.html');
  app.use(
    express.static(dist, {
      index: false,
      setHeaders: (response, path) => {
        const hashed =
          path.includes(`${HASHED_ASSETS.slice(0, -1)}/`) || path.includes('\\assets\\');
        response.setHeader(
          'Cache-Control',
          hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    }),
  );
  app.use((request: Request, response: Response, next: NextFunction) => {
    const isPage =
      (request.method === 'GET' || request.method === 'HEAD') &&
      request.path !== API_PREFIX &&
      !request.path.startsWith(`${API_PREFIX}/`) &&
      !request.path.startsWith(HASHED_ASSETS);
    if (!isPage) {
      next();
      return;
    }
    response.setHeader('Cache-Control', 'no-cache');
    response.sendFile(index);
  });
}
