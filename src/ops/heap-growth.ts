import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the JavaScript heap's old generation grow past what its last full collection
 * kept before it collects again (docs/decisions.md, "Starting and running it"). By default V8
 * picks a factor between 1.1 and 4 from its own speed, and on this service it picked the high end:
 * during a 100,000-article bulk upload the old generation reached 190 MiB over some 45 MiB live,
 * and between two uploads it still held the first one's garbage while the next body arrived. At
 * 1.5 the heap stayed under 125 MiB and the upload's peak fell by about 80 MiB, with the same
 * upload times and no measurable CPU per basket (docs/performance.md).
 */
export const HEAP_GROWING_PERCENT = 50;

const FLAG = '--heap-growing-percent';

/**
 * The V8 flag to set, or null when node's command line (`execArgv`) names one already: the
 * operator's choice wins.
 */
export function heapGrowthFlag(execArgv: readonly string[]): string | null {
  const named = execArgv.some(
    (arg) => arg === FLAG || arg.startsWith(`${FLAG}=`) || arg.startsWith('--heap_growing_percent'),
  );
  return named ? null : `${FLAG}=${HEAP_GROWING_PERCENT}`;
}

/** Sets the heap's growth for this process; called first thing at start, before the service loads. */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  const flag = heapGrowthFlag(execArgv);
  if (flag !== null) setFlagsFromString(flag);
}
