// @ts-check

/**
 * cls-hooked's namespace API (the part the AWS X-Ray SDK calls) on AsyncLocalStorage, for the X-Ray
 * SDK path of `npm run bench -- tracing` (scripts/bench-tracing.ts aliases `cls-hooked` here), as
 * the service ran that SDK before it traced without one (docs/operations.md, Tracing). cls-hooked
 * follows contexts with an async_hooks hook that runs on every promise and callback the process
 * makes, traced or not: about 0.45 ms of CPU per order. On Node 24, AsyncLocalStorage carries its
 * store with the async context frame and costs nothing per promise.
 *
 * Semantics kept from cls-hooked 4.2.2: a context inherits from the one active when it was made;
 * `run` and `bind` make theirs active for the call and everything it starts; `set` needs an active
 * context; errors leaving `run`/`bind` carry their context. One difference on purpose: a context
 * `enter`ed outside any `run` (the X-Ray SDK does this once at import on Lambda, for its facade
 * segment) stays active wherever no `run` is, as cls-hooked's global `active` did; cls-hooked would
 * also have left an `enter` inside a `run` active for what ran after, which nothing here relies on.
 */
const { AsyncLocalStorage } = require('node:async_hooks');

const ERROR_SYMBOL = 'error@context';

/** @typedef {Record<string | symbol, unknown>} Context */

class Namespace {
  /** @param {string} name */
  constructor(name) {
    this.name = name;
    /** @type {AsyncLocalStorage<Context>} */
    this.storage = new AsyncLocalStorage();
    /** @type {Context | null} the context entered outside any run, active where no run is */
    this.outer = null;
    /** @type {(Context | null)[]} what each enter replaced, for its exit */
    this.entered = [];
  }

  /** @returns {Context | null} */
  get active() {
    return this.storage.getStore() ?? this.outer;
  }

  /** @param {string} key @param {unknown} value */
  set(key, value) {
    const context = this.active;
    if (!context) throw new Error('No context available. ns.run() or ns.bind() must be called first.');
    context[key] = value;
    return value;
  }

  /** @param {string} key */
  get(key) {
    return this.active?.[key];
  }

  /** @returns {Context} */
  createContext() {
    const context = Object.create(this.active ?? Object.prototype);
    context._ns_name = this.name;
    return context;
  }

  /** @template T @param {(context: Context) => T} fn @param {Context} context */
  runIn(fn, context) {
    try {
      return this.storage.run(context, fn, context);
    } catch (error) {
      if (error && typeof error === 'object') /** @type {Context} */ (error)[ERROR_SYMBOL] = context;
      throw error;
    }
  }

  /** @param {(context: Context) => void} fn */
  run(fn) {
    const context = this.createContext();
    this.runIn(fn, context);
    return context;
  }

  /** @template T @param {(context: Context) => T} fn */
  runAndReturn(fn) {
    return this.runIn(fn, this.createContext());
  }

  /** @template T @param {(context: Context) => Promise<T>} fn */
  runPromise(fn) {
    const context = this.createContext();
    const promise = this.runIn(fn, context);
    if (!promise || typeof promise.then !== 'function') throw new Error('fn must return a promise.');
    return promise.catch((/** @type {unknown} */ error) => {
      if (error && typeof error === 'object') /** @type {Context} */ (error)[ERROR_SYMBOL] = context;
      throw error;
    });
  }

  /**
   * @template {(...args: never[]) => unknown} F
   * @param {F} fn @param {Context} [context] @returns {F}
   */
  bind(fn, context) {
    const bound = context ?? this.active ?? this.createContext();
    const namespace = this;
    return /** @type {F} */ (
      /** @this {unknown} */
      function clsBind(/** @type {never[]} */ ...args) {
        return namespace.runIn(() => fn.apply(this, args), bound);
      }
    );
  }

  /** @param {Context} context */
  enter(context) {
    if (!context) throw new Error('context must be provided for entering');
    this.entered.push(this.active);
    if (this.storage.getStore() === undefined) this.outer = context;
    else this.storage.enterWith(context);
  }

  /** @param {Context} context */
  exit(context) {
    if (!context) throw new Error('context must be provided for exiting');
    if (this.active !== context) throw new Error("context not currently entered; can't exit");
    const previous = this.entered.pop() ?? null;
    if (this.storage.getStore() === context)
      this.storage.enterWith(/** @type {Context} */ (previous ?? undefined));
    else this.outer = previous;
  }

  /** @param {unknown} exception */
  fromException(exception) {
    return exception && typeof exception === 'object'
      ? /** @type {Context} */ (exception)[ERROR_SYMBOL]
      : undefined;
  }
}

/** @type {Map<string, Namespace>} */
const namespaces = new Map();

/** @param {string} name */
function getNamespace(name) {
  return namespaces.get(name);
}

/** @param {string} name */
function createNamespace(name) {
  if (!name) throw new Error('namespace must be given a name.');
  const namespace = new Namespace(name);
  namespaces.set(name, namespace);
  return namespace;
}

/** @param {string} name */
function destroyNamespace(name) {
  namespaces.delete(name);
}

function reset() {
  namespaces.clear();
}

module.exports = { getNamespace, createNamespace, destroyNamespace, reset, ERROR_SYMBOL, Namespace };
