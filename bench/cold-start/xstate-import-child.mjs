// Floor for bench/cold-start.ts: a `node` process that imports only xstate with `import` (its ESM
// entry is a CommonJS wrapper), the way Settle's sources import it. Prints one JSON line.
import { createActor, setup } from "xstate";

const importsDoneAt = performance.now();
const rssAfterImportMiB = process.memoryUsage().rss / 1048576;
if (typeof createActor !== "function" || typeof setup !== "function") throw new Error("xstate did not load");
process.stdout.write(`${JSON.stringify({ importsDoneMs: importsDoneAt, rssAfterImportMiB })}\n`);
