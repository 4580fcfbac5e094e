import { methodNotAllowed, notFound } from '../shared/errors.ts';
import { bodilessHandler } from '../shared/http/http-handler.ts';
import { matchRoute, PUBLIC_ROUTES } from '../shared/http/routes.ts';

/** Every request no route takes: 405 with `Allow` on a known path, else 404 (after authentication). */
export const handler = bodilessHandler((event) => {
  const match = matchRoute(event.path);
  if (match) throw methodNotAllowed(match.methods);
  const publicRoute = PUBLIC_ROUTES.find((route) => route.path === event.path);
  if (publicRoute) throw methodNotAllowed([publicRoute.method]);
  throw notFound(`No route for ${event.httpMethod} ${event.path}.`);
});
