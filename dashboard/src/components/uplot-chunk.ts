/**
 * The chart library's own chunk: only `loadChartLibrary` imports this file (dynamically), so uPlot,
 * its stylesheet and what uPlot runs as it loads reach the browser with the first page that draws
 * a chart, never at start-up.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export default uPlot;
