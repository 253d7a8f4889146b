#!/usr/bin/env node
// The `settle` command: runs the bundled CLI (dist/cli.js, made by `npm run build`).
// During development, without a build: npx tsx src/cli/main.ts
import { existsSync } from "node:fs";

const cli = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(cli)) {
	console.error(
		"settle: the package is not built (dist/cli.js is missing). Run `npm run build` first, or run the sources with `npx tsx src/cli/main.ts`.",
	);
	process.exit(1);
}
const { runCli } = await import(cli.href);
await runCli(process.argv.slice(2));
