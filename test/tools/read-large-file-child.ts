/**
 * Run in a fresh `node --import tsx` process by read-large-file.test.ts: reads argv[3] (relative to
 * argv[2]) with limit argv[4] through the `read` tool and prints the text and how much the process's
 * peak resident memory grew during that read. A fresh process, so the peak is this read's alone;
 * `small.txt` in argv[2] is read first, to load what the tool loads on first use.
 */
import { createReadToolDefinition } from "../../src/tools/read.js";

const [cwd, path, limit] = process.argv.slice(2) as [string, string, string];
const read = createReadToolDefinition(cwd);
await read.execute("warm-up", { path: "small.txt" }, undefined, undefined, undefined);
const peakBefore = process.resourceUsage().maxRSS;
const result = await read.execute("call-1", { path, limit: Number(limit) }, undefined, undefined, undefined);
const peakGrowthKiB = process.resourceUsage().maxRSS - peakBefore;
const block = result.content[0];
console.log(JSON.stringify({ text: block?.type === "text" ? block.text : "", peakGrowthKiB }));
