/**
 * pi 0.73.1's own CLI pieces for the differential: its `parseArgs` (not exported by the package,
 * so imported from its dist by path) and the paths of its CLI entry point.
 */
import { join } from "node:path";
import { ROOT } from "./helpers.js";

export type { Args as PiArgs } from "../../node_modules/@mariozechner/pi-coding-agent/dist/cli/args.js";
export { parseArgs as piParseArgs } from "../../node_modules/@mariozechner/pi-coding-agent/dist/cli/args.js";

/** pi's package folder. */
export const PI_PACKAGE = join(ROOT, "node_modules/@mariozechner/pi-coding-agent");
