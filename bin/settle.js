#!/usr/bin/env node
// The `settle` command: runs the built CLI (dist/). During development: npx tsx src/cli/main.ts
let cli;
try {
	cli = await import("../dist/src/cli/main.js");
} catch (error) {
	if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/src/cli/main.js")) {
		console.error("settle: the package is not built. Run `npm run build` first (or use `npx tsx src/cli/main.ts`).");
		process.exit(1);
	}
	throw error;
}
await cli.runCli(process.argv.slice(2));
