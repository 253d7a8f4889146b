// Floor for bench/cold-start.ts: a `node` process that loads only xstate, the way Settle's bundle
// does (`createRequire(import.meta.url)("xstate")`, see scripts/build.mjs). Prints one JSON line.
import { createRequire } from "node:module";

const { createActor, setup } = createRequire(import.meta.url)("xstate");
const importsDoneAt = performance.now();
const rssAfterImportMiB = process.memoryUsage().rss / 1048576;
if (typeof createActor !== "function" || typeof setup !== "function") throw new Error("xstate did not load");
process.stdout.write(`${JSON.stringify({ importsDoneMs: importsDoneAt, rssAfterImportMiB })}\n`);
