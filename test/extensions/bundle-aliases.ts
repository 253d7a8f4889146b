/**
 * Extension aliases that resolve Settle's own modules (`settle`, `settle/testing`, `settle/inspect`
 * and pi's `@mariozechner/pi-coding-agent`, i.e. Settle's pi-compat module) to the bundle of the
 * CURRENT sources (test/cli/cli-bundle.ts: rebuilt whenever a source changes, a mutant included), as
 * the published package resolves them. The default aliases of a test (src/ run by Vitest) point at
 * the TypeScript sources instead, which jiti evaluates anew for every extension it loads (no module
 * cache): about 0.35 s of CPU per example extension. The bundle is an ES module Node imports once
 * per process. For tests whose subject is what the extensions do, not how the sources layout loads:
 * test/package/extension-aliases.test.ts and pi-examples.test.ts's single-example tests keep the
 * sources' aliases.
 */
import { dirname, join } from "node:path";
import { defaultExtensionAliases } from "../../src/resources/extensions.js";
import { cliBundle } from "../cli/cli-bundle.js";

export function bundledExtensionAliases(): Record<string, string> {
	const dist = dirname(cliBundle());
	return {
		...defaultExtensionAliases(),
		settle: join(dist, "index.js"),
		"settle/testing": join(dist, "testing.js"),
		"settle/inspect": join(dist, "inspect.js"),
		"@mariozechner/pi-coding-agent": join(dist, "pi-compat.js"),
	};
}
