import { notFound } from '../errors.ts';
import { CONSOLE_EVENT_TYPES, type ConsoleEventType } from '../schemas/console.ts';

/** The `{type}` of a management path: an event type, else 404 (no such resource). */
export function eventTypeOf(pathParameters: Readonly<Record<string, string>>): ConsoleEventType {
  const type = pathParameters.type;
  if (!CONSOLE_EVENT_TYPES.includes(type as ConsoleEventType)) {
    throw notFound(`No event type ${type}; use one of ${CONSOLE_EVENT_TYPES.join(', ')}.`);
  }
  return type as ConsoleEventType;
}
