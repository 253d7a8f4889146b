/**
 * Extensions import `settle` (and `settle/testing`) and pi's `@mariozechner/pi-coding-agent` by
 * name; Settle's default jiti aliases map those names to its own modules — in the source tree (tsx,
 * vitest) and in the built package (dist/, entry files next to the chunks). Both layouts load the
 * same two extension files (test/fixtures/package/extensions) and run their tools.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExtensionHarness } from "../../src/extensions/testing.js";
import { defaultExtensionAliases, loadExtensions } from "../../src/resources/extensions.js";
import { type BuiltPackage, builtPackage, REPO_ROOT } from "./helpers.js";

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

describe("extension aliases from the built package", () => {
	let pkg: BuiltPackage;
	beforeAll(() => {
		pkg = builtPackage("test/package");
	});
	afterAll(() => pkg?.remove());

	it("map to the bundle's entry files; the extensions get the host's own Settle module", () => {
		const child = spawnSync(
			process.execPath,
			[
				join(FIXTURES, "load-extensions.mjs"),
				pathToFileURL(join(pkg.dist, "index.js")).href,
				pathToFileURL(join(pkg.dist, "testing.js")).href,
				...EXTENSIONS,
			],
			{ cwd: pkg.root, encoding: "utf8" },
		);
		expect(child.stderr).toBe("");
		const report = JSON.parse(child.stdout) as {
			aliases: Record<string, string>;
			errors: unknown[];
			results: Record<string, string>;
			sameSettle: boolean;
		};
		expect(report.aliases).toMatchObject({
			settle: join(pkg.dist, "index.js"),
			"settle/testing": join(pkg.dist, "testing.js"),
			"settle/inspect": join(pkg.dist, "inspect.js"),
			"@mariozechner/pi-coding-agent": join(pkg.dist, "pi-compat.js"),
		});
		expect(report.errors).toEqual([]);
		expect(report.results).toEqual(EXPECTED_RESULTS);
		// jiti imports the bundle's ES modules natively: one Settle in the process, shared classes.
		expect(report.sameSettle).toBe(true);
	});

	it("the bundled CLI runs both extensions' tools (-e), driven by a faux script", () => {
		const script = join(pkg.root, "script.json");
		const steps = [
			{ toolCalls: [{ name: "settle_error", arguments: { code: "ABORTED" } }] },
			{ toolCalls: [{ name: "first_lines", arguments: { text: "a\nb\nc", lines: 1 } }] },
			"done",
		];
		writeFileSync(script, JSON.stringify(steps));
		const args = [
			"--faux-script",
			script,
			"--no-session",
			"--json",
			...EXTENSIONS.flatMap((path) => ["-e", path]),
			"go",
		];
		const run = spawnSync(process.execPath, [pkg.bin, ...args], {
			cwd: pkg.root,
			encoding: "utf8",
			env: { ...process.env, SETTLE_AGENT_DIR: join(pkg.root, "agent") },
		});
		expect(run.stderr).toBe("");
		expect(run.status).toBe(0);
		const toolResults = run.stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; toolName?: string; result?: { content: { text: string }[] } })
			.filter((event) => event.type === "tool_execution_end")
			.map((event) => [event.toolName, event.result!.content[0]!.text]);
		expect(toolResults).toEqual([
			["settle_error", "SettleError ABORTED true text"],
			["first_lines", "a"],
		]);
	});
});
