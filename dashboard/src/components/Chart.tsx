import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import { format } from '../format.ts';
import { type ChartLibrary, loadChartLibrary } from './chart-library.ts';
import { ErrorMessage } from './ErrorMessage.tsx';

/** What a page draws: uPlot's options (without the size, which the chart takes from its box) and data. */
export interface ChartDrawing {
  options: Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
}

/**
 * A uPlot chart; the library is loaded when the first chart mounts (its own chunk). `draw` receives
 * the library (for its helpers, such as `tzDate`); keep it stable (useCallback) so the chart is
 * rebuilt only when what it shows changes.
 */
export function Chart({
  draw,
  height = 220,
}: {
  draw: (library: ChartLibrary) => ChartDrawing;
  height?: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  const [library, setLibrary] = useState<{ uPlot?: ChartLibrary; error?: unknown }>({});
  useEffect(() => {
    let live = true;
    loadChartLibrary().then(
      (uPlot) => live && setLibrary({ uPlot }),
      (error: unknown) => live && setLibrary({ error }),
    );
    return () => {
      live = false;
    };
  }, []);
  useEffect(() => {
    if (!library.uPlot || !host.current) return;
    const { options, data } = draw(library.uPlot);
    const chart = new library.uPlot(
      { ...mirroredForRtl(options), width: host.current.clientWidth || 560, height },
      data,
      host.current,
    );
    return () => chart.destroy();
  }, [library.uPlot, draw, height]);
  return (
    <>
      <ErrorMessage error={library.error} action="Loading the chart" />
      {library.uPlot || library.error ? null : <p aria-live="polite">Loading the chart…</p>}
      <div ref={host} class="chart" />
    </>
  );
}

/** Right to left, the x axis runs from the right (time flows as the text does) and y stands on the right. */
function mirroredForRtl(options: ChartDrawing['options']): ChartDrawing['options'] {
  if (format.direction !== 'rtl') return options;
  return {
    ...options,
    scales: { ...options.scales, x: { ...options.scales?.x, dir: -1 } },
    axes: options.axes?.map((axis, index) => (index === 0 ? axis : { side: 1, ...axis })),
  };
}
