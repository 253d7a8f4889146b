/**
 * Regenerates `visualizations/` from the machine definitions.
 * Usage: `npm run viz` or `npx tsx src/inspect/write-visualizations.ts [dir]`.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeVisualizations } from "./visualizations.js";

const defaultDir = resolve(fileURLToPath(new URL("../../visualizations", import.meta.url)));
const dir = resolve(process.argv[2] ?? defaultDir);
const written = await writeVisualizations(dir);
for (const path of written) console.log(`wrote ${path}`);
