import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createNamespace, destroyNamespace, ERROR_SYMBOL, getNamespace } from 'cls-hooked';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * packages/cls-hooked-als: cls-hooked's namespace API on AsyncLocalStorage, installed in cls-hooked's
 * place for the AWS X-Ray SDK (package.json overrides). What the SDK relies on, as units.
 */
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('cls-hooked on AsyncLocalStorage', () => {
  afterEach(() => destroyNamespace('test'));

  it('is what the X-Ray SDK loads when it requires cls-hooked/context', () => {
    const xraySdk = createRequire(createRequire(import.meta.url).resolve('aws-xray-sdk-core'));
    expect(realpathSync(xraySdk.resolve('cls-hooked/context'))).toBe(
      fileURLToPath(new URL('../packages/cls-hooked-als/context.js', import.meta.url)),
    );
  });

  it('keeps a value set in run for what the run starts, across awaits and timers, and not outside it', async () => {
    const namespace = createNamespace('test');
    const seen: unknown[] = [];
    let finished: Promise<void> = Promise.resolve();
    namespace.run(() => {
      namespace.set('segment', 'order');
      finished = (async () => {
        await tick();
        seen.push(namespace.get('segment'));
        await new Promise<void>((resolve) =>
          setTimeout(() => {
            seen.push(namespace.get('segment'));
            resolve();
          }, 1),
        );
      })();
    });
    await finished;
    expect(seen).toEqual(['order', 'order']);
    expect(namespace.get('segment')).toBeUndefined();
  });

  it('isolates concurrent runs, and a nested run reads its parent until it sets its own', async () => {
    const namespace = createNamespace('test');
    const read = (label: string) =>
      namespace.runPromise(async () => {
        namespace.set('segment', label);
        await tick();
        const inner = await namespace.runPromise(async () => {
          const inherited = namespace.get('segment');
          namespace.set('segment', `${label}/child`);
          await tick();
          return [inherited, namespace.get('segment')];
        });
        return [...inner, namespace.get('segment')];
      });
    expect(await Promise.all([read('a'), read('b')])).toEqual([
      ['a', 'a/child', 'a'],
      ['b', 'b/child', 'b'],
    ]);
  });

  it('finds a namespace by name, and refuses set with no active context, as cls-hooked does', () => {
    const namespace = createNamespace('test');
    expect(getNamespace('test')).toBe(namespace);
    expect(() => namespace.set('segment', 'x')).toThrow('No context available');
  });

  it('keeps a context entered outside any run active wherever no run is (the SDK on Lambda), until exited', async () => {
    const namespace = createNamespace('test');
    const root = namespace.createContext();
    namespace.enter(root);
    namespace.set('segment', 'facade');
    await tick();
    expect(namespace.get('segment')).toBe('facade');
    namespace.run(() => {
      expect(namespace.get('segment')).toBe('facade');
      namespace.set('segment', 'handler');
    });
    expect(namespace.get('segment')).toBe('facade');
    namespace.exit(root);
    expect(namespace.get('segment')).toBeUndefined();
    expect(() => namespace.exit(root)).toThrow('not currently entered');
  });

  it('runs a bound function in the context it was bound in, wherever it is called', async () => {
    const namespace = createNamespace('test');
    let bound: () => unknown = () => undefined;
    namespace.run(() => {
      namespace.set('segment', 'bound');
      bound = namespace.bind(() => namespace.get('segment'));
    });
    await tick();
    expect(bound()).toBe('bound');
    expect(namespace.get('segment')).toBeUndefined();
  });

  it('marks an error thrown out of a run with its context', () => {
    const namespace = createNamespace('test');
    let context: unknown;
    let thrown: unknown;
    try {
      namespace.run((ctx) => {
        context = ctx;
        throw new Error('boom');
      });
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Record<string, unknown>)[ERROR_SYMBOL]).toBe(context);
    expect(namespace.fromException(thrown)).toBe(context);
  });
});
