import type uPlot from 'uplot';
import { format, usableLocale } from '../format.ts';

export type ChartLibrary = typeof uPlot;

let loading: Promise<ChartLibrary> | undefined;

/**
 * uPlot, fetched the first time a page asks (a separate chunk) and kept. uPlot builds
 * `new Intl.NumberFormat(navigator.language)` while its module loads; a language Intl refuses
 * (`en-US@posix`) would throw there, so for that moment the browser's language reads as the
 * console's own locale. A failed fetch is not kept: the next chart tries again.
 */
export function loadChartLibrary(): Promise<ChartLibrary> {
  loading ??= withUsableLanguage(() => import('./uplot-chunk.ts')).then(
    (module) => module.default,
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

async function withUsableLanguage<T>(load: () => Promise<T>): Promise<T> {
  if (usableLocale(navigator.language)) return load();
  Object.defineProperty(navigator, 'language', { value: format.locale, configurable: true });
  try {
    return await load();
  } finally {
    Reflect.deleteProperty(navigator, 'language'); // the browser's own getter again
  }
}
