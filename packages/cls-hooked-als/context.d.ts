/** Types of context.js: cls-hooked's namespace API on AsyncLocalStorage. */
export type Context = Record<string | symbol, unknown>;

export declare class Namespace {
  readonly name: string;
  readonly active: Context | null;
  set<T>(key: string, value: T): T;
  get(key: string): unknown;
  createContext(): Context;
  run(fn: (context: Context) => void): Context;
  runAndReturn<T>(fn: (context: Context) => T): T;
  runPromise<T>(fn: (context: Context) => Promise<T>): Promise<T>;
  bind<F extends (...args: never[]) => unknown>(fn: F, context?: Context): F;
  enter(context: Context): void;
  exit(context: Context): void;
  fromException(exception: unknown): Context | undefined;
}

export declare function getNamespace(name: string): Namespace | undefined;
export declare function createNamespace(name: string): Namespace;
export declare function destroyNamespace(name: string): void;
export declare function reset(): void;
export declare const ERROR_SYMBOL: string;
