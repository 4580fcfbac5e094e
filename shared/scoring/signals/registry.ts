import type { EventType } from '../../contract/endpoints.ts';
import { ACCOUNT_SIGNALS } from './account-signals.ts';
import type {
  newIdentitiesAroundLastHour,
  scriptSpeedAfterPreviousEvent,
  youngIdentity,
} from './identity-time.ts';
import { LOGIN_SIGNALS } from './login-signals.ts';
import { ORDER_SIGNALS } from './order-signals.ts';
import { RETURN_SIGNALS } from './return-signals.ts';
import type { SignalDeclaration } from './signal.ts';
import { SIGNUP_SIGNALS } from './signup-signals.ts';
import type { watchedIdentityKnownCustomer, watchedIdentityNewCustomer } from './watched-identity.ts';
import type { freshAccountsOnYoungIdentity } from './young-shared-identity.ts';

/**
 * Every signal of every scored event type, declared once in its event type's list (the shared ones,
 * declared once in identity-time.ts and young-shared-identity.ts, sit in each list that reads them).
 * What reads the registry: the default models' weights are checked against it (models.ts by tsc,
 * test/scoring/signal-registry.test.ts at run time), the meanings are keyed by its names
 * (meanings.ts), and each type's use case computes its list through `orderSignals(input)` etc.
 * No Lambda handler imports this module: each bundle carries its own event type's list only.
 */
export const SIGNAL_REGISTRY = {
  order: ORDER_SIGNALS,
  return: RETURN_SIGNALS,
  signup: SIGNUP_SIGNALS,
  login: LOGIN_SIGNALS,
  account: ACCOUNT_SIGNALS,
} as const satisfies Record<EventType, readonly SignalDeclaration<never>[]>;

/** The names of the signals an event type declares. */
export type SignalName<T extends EventType> = (typeof SIGNAL_REGISTRY)[T][number]['name'];

/** Signals declared once for several event types, each type saying how it reads its input. */
export type SharedSignalName =
  | ReturnType<
      | typeof scriptSpeedAfterPreviousEvent
      | typeof youngIdentity
      | typeof newIdentitiesAroundLastHour
      | typeof freshAccountsOnYoungIdentity
    >['name']
  | (typeof watchedIdentityNewCustomer | typeof watchedIdentityKnownCustomer)['name'];

/** The names an event type declares that are its own (not shared), which its meanings must word. */
export type OwnSignalName<T extends EventType> = Exclude<SignalName<T>, SharedSignalName>;

export function signalNames(eventType: EventType): string[] {
  return SIGNAL_REGISTRY[eventType].map((declaration) => declaration.name);
}

/** The event types that declare a signal. */
export function eventTypesOf(name: string): EventType[] {
  return (Object.keys(SIGNAL_REGISTRY) as EventType[]).filter((type) => signalNames(type).includes(name));
}
