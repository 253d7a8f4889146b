#!/usr/bin/env node
import("../dist/src/cli/main.js").catch((error) => {
	if (error?.code === "ERR_MODULE_NOT_FOUND") {
		console.error("settle: the package is not built. Run `npm run build` first.");
		process.exit(1);
	}
	throw error;
});
