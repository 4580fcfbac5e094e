import { methodNotAllowed, notFound } from '../shared/errors.ts';
import { bodilessHandler } from '../shared/http/http-handler.ts';
import { matchRoute } from '../shared/http/routes.ts';

/** Every request no route takes: 405 with `Allow` on a known path, else 404 (after authentication). */
export const handler = bodilessHandler((event) => {
  const match = matchRoute(event.path);
  if (match) throw methodNotAllowed([match.route.method]);
  throw notFound(`No route for ${event.httpMethod} ${event.path}.`);
});
