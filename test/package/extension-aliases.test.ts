/**
 * Extensions import `settle` (and `settle/testing`) and pi's `@mariozechner/pi-coding-agent` by
 * name; Settle's default jiti aliases map those names to its own modules. Here in the source tree
 * (tsx, vitest); pack.test.ts loads the same two extension files (test/fixtures/package/extensions)
 * through the installed package (dist/, entry files next to the chunks) and its `settle` command.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExtensionHarness } from "../../src/extensions/testing.js";
import { defaultExtensionAliases, loadExtensions } from "../../src/resources/extensions.js";
import { REPO_ROOT } from "./helpers.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "package");
const EXPECTED_RESULTS = { settle_error: "SettleError INTERNAL true text", first_lines: "one\ntwo" };

/**
 * The extension files, copied outside the repository: nothing next to them resolves `settle`,
 * TypeBox or pi's package, so only the aliases can.
 */
let extensionsDir: string;
let EXTENSIONS: string[];
beforeAll(() => {
	extensionsDir = mkdtempSync(join(tmpdir(), "settle-extension-aliases-"));
	cpSync(join(FIXTURES, "extensions"), extensionsDir, { recursive: true });
	EXTENSIONS = ["uses-settle.ts", "pi-style.ts"].map((name) => join(extensionsDir, name));
});
afterAll(() => rmSync(extensionsDir, { recursive: true, force: true }));
describe("extension aliases from the source tree", () => {
	it("map settle, its subpaths and pi's package to the TypeScript sources", () => {
		const aliases = defaultExtensionAliases();
		expect(aliases).toMatchObject({
			settle: join(REPO_ROOT, "src", "index.ts"),
			"settle/testing": join(REPO_ROOT, "src", "testing", "index.ts"),
			"settle/inspect": join(REPO_ROOT, "src", "inspect", "index.ts"),
			"@mariozechner/pi-coding-agent": join(REPO_ROOT, "src", "extensions", "pi-compat.ts"),
		});
		expect(aliases["@sinclair/typebox"]).toContain(join("node_modules", "@sinclair", "typebox"));
	});

	it("load an extension importing settle and a pi extension with value imports; their tools run", async () => {
		const cwd = extensionsDir;
		const loaded = await loadExtensions(
			EXTENSIONS.map((path) => ({ path, source: "explicit" as const })),
			{ cwd, agentDir: cwd, projectTrusted: true },
		);
		expect(loaded.errors).toEqual([]);
		const harness = await createExtensionHarness({ extensions: loaded.extensions, cwd });
		expect((await harness.callTool("settle_error", { code: "INTERNAL" })).result.content).toEqual([
			{ type: "text", text: EXPECTED_RESULTS.settle_error },
		]);
		expect((await harness.callTool("first_lines", { text: "one\ntwo\nthree", lines: 2 })).result.content).toEqual([
			{ type: "text", text: EXPECTED_RESULTS.first_lines },
		]);
		// `settle` resolves to src/index.ts: jiti transpiles Settle's whole source tree for it (cold cache
		// on a clean clone; ~2 s idle, 13 s seen on a loaded 2-core box).
	}, 120_000);
});
