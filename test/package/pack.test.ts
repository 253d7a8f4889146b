/**
 * The published package, end to end and offline: `npm pack` (its `prepack` runs `npm run build`, so
 * this also rebuilds the repository's dist/), the tarball installed into a temp project the way npm
 * lays it out — extracted into `node_modules/settle`, the bin linked in `node_modules/.bin`, and
 * settle's dependencies linked from the repository's node_modules (a real `npm install` would need
 * the registry) — then used as a user would: the three entries imported by name, the `settle`
 * command, extensions (through Settle's default aliases: they import `settle` and pi's package by
 * name from a folder where nothing else resolves them), and the TypeScript types.
 */
import { spawnSync } from "node:child_process";
import {
	chmodSync,
	cpSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	realpathSync,
	renameSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeImage } from "../tools/image-resize-helpers.js";
import { REPO_ROOT, runtimeDependencies } from "./helpers.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "package");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

let root: string;
let project: string;
let installed: string;
let packedFiles: string[];
/** The two extension files, outside the project: no node_modules next to them, only the aliases resolve. */
let extensions: string[];
const EXPECTED_RESULTS = { settle_error: "SettleError INTERNAL true text", first_lines: "one\ntwo" };

/** Runs a command; throws with its output unless it exits 0. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
	const result = spawnSync(command, args, { cwd, env, encoding: "utf8", shell: process.platform === "win32" });
	if (result.status !== 0) {
		throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status}):\n${result.stderr}${result.stdout}`);
	}
	return result.stdout;
}

/** Links `node_modules/<name>` of the project to the repository's installed copy. */
function linkPackage(name: string): void {
	const target = join(project, "node_modules", name);
	mkdirSync(dirname(target), { recursive: true });
	symlinkSync(realpathSync(join(REPO_ROOT, "node_modules", name)), target, "junction");
}

beforeAll(() => {
	root = mkdtempSync(join(tmpdir(), "settle-pack-"));
	const env = {
		...process.env,
		npm_config_update_notifier: "false",
		npm_config_fund: "false",
		npm_config_audit: "false",
	};
	const [packed] = JSON.parse(run(NPM, ["pack", "--json", "--pack-destination", root], REPO_ROOT, env)) as {
		filename: string;
		files: { path: string }[];
	}[];
	packedFiles = packed!.files.map((file) => file.path).sort();
	project = join(root, "project");
	mkdirSync(join(project, "node_modules", ".bin"), { recursive: true });
	run("tar", ["-xzf", join(root, packed!.filename), "-C", join(project, "node_modules")], root);
	installed = join(project, "node_modules", "settle");
	renameSync(join(project, "node_modules", "package"), installed);
	for (const name of runtimeDependencies()) linkPackage(name);
	linkPackage("@types/node"); // the consumer project's own dev dependency, for its type check
	chmodSync(join(installed, "bin", "settle.js"), 0o755);
	symlinkSync(join("..", "settle", "bin", "settle.js"), join(project, "node_modules", ".bin", "settle"));
	cpSync(join(FIXTURES, "consumer"), project, { recursive: true });
	cpSync(join(FIXTURES, "extensions"), join(root, "extensions"), { recursive: true });
	extensions = ["uses-settle.ts", "pi-style.ts"].map((name) => join(root, "extensions", name));
	cpSync(join(FIXTURES, "load-extensions.mjs"), join(project, "load-extensions.mjs"));
}, 180_000);

afterAll(() => {
	if (root) rmSync(root, { recursive: true, force: true });
});

/** Runs `node <args>` in the project. */
function node(args: string[]) {
	return spawnSync(process.execPath, args, { cwd: project, encoding: "utf8" });
}

/** Runs the installed `settle` command through its node_modules/.bin link, as a shell would. */
function settleCommand(args: string[]) {
	const PATH = [dirname(process.execPath), process.env.PATH].join(delimiter);
	return spawnSync(join(project, "node_modules", ".bin", "settle"), args, {
		cwd: project,
		encoding: "utf8",
		input: "",
		env: { ...process.env, PATH, SETTLE_AGENT_DIR: join(root, "agent") },
		maxBuffer: 64 * 1024 * 1024, // --json events carry images (a resized photo is ~0.7 MB per event)
	});
}

describe("npm pack", () => {
	it("packs the README, package.json, the bin and dist/ (bundle, source maps, declarations) — nothing else", () => {
		const outside = packedFiles.filter(
			(path) => !/^(README\.md|LICENSE|package\.json|bin\/settle\.js|dist\/.+\.(js|js\.map|d\.ts))$/.test(path),
		);
		expect(outside).toEqual([]);
		for (const entry of ["index", "testing", "inspect", "rpc", "cli", "pi-compat", "image-resize-worker"]) {
			expect(packedFiles).toContain(`dist/${entry}.js`);
			expect(packedFiles).toContain(`dist/${entry}.js.map`);
		}
		for (const types of ["src/index.d.ts", "src/testing/index.d.ts", "src/inspect/index.d.ts", "src/rpc/index.d.ts"]) {
			expect(packedFiles).toContain(`dist/types/${types}`);
		}
		expect(packedFiles.filter((path) => /^dist\/chunk-[A-Z0-9]+\.js$/.test(path)).length).toBeGreaterThan(0);
	});
});

describe("the installed package", () => {
	it("imports settle, settle/testing and settle/inspect by name; a harness prompt settles; a diagram draws", () => {
		const child = node(["consumer.mjs"]);
		expect(child.stderr).toBe("");
		const result = JSON.parse(child.stdout) as Record<string, unknown>;
		expect(result).toEqual({
			resolved: ["index.js", "testing.js", "inspect.js"].map(
				(file) => pathToFileURL(join(installed, "dist", file)).href,
			),
			reply: [{ type: "text", text: "Hello from the installed package" }],
			settled: 1,
			sharedClasses: true,
			svg: true,
		});
	});

	it("CommonJS projects (npm init's default) require all three entries by name", () => {
		// `"type": "commonjs"` is what `npm init -y` writes; tsx and `require()` then ask for the
		// `default` condition (require of an ES module: Node >= 20.19).
		const cjs = join(project, "cjs");
		mkdirSync(cjs, { recursive: true });
		writeFileSync(join(cjs, "package.json"), JSON.stringify({ type: "commonjs" }));
		writeFileSync(
			join(cjs, "use.js"),
			[
				'const settle = require("settle");',
				'const testing = require("settle/testing");',
				'const inspect = require("settle/inspect");',
				'console.log([typeof settle.createAgentSession, typeof testing.createHarness, typeof inspect.serveInspector].join(" "));',
			].join("\n"),
		);
		const child = spawnSync(process.execPath, ["use.js"], { cwd: cjs, encoding: "utf8" });
		expect(child.stderr).not.toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED|ERR_REQUIRE_ESM/);
		expect(child.stdout.trim()).toBe("function function function");
	});

	it("settle/rpc's client starts the package's own `settle --rpc` by default and drives a prompt; its errors are settle's SettleError", () => {
		const child = node(["rpc-client.mjs"]);
		expect(child.stderr).toBe("");
		expect(JSON.parse(child.stdout)).toEqual({
			resolved: pathToFileURL(join(installed, "dist", "rpc.js")).href,
			last: "agent_settled",
			text: "over rpc",
			failed: { sameClass: true, code: "COMMAND_FAILED" },
		});
	});

	it("`settle --faux -p hi` runs the bundled CLI from node_modules/.bin", () => {
		const result = settleCommand(["--faux", "-p", "hi"]);
		expect({ code: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
			code: 0,
			stdout: "hi\n",
			stderr: "",
		});
		expect(settleCommand(["--version"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
	});

	it("resizes a 12-megapixel photo in the package's worker thread (SDK and `settle @file`), as pi to the byte", async () => {
		writeFileSync(join(project, "photo.jpg"), encodeImage("jpeg", 4000, 3000, 7, 40));
		const child = node(["read-image.mjs", "photo.jpg"]);
		expect(child.stderr).toBe("");
		const ours = JSON.parse(child.stdout) as { content: unknown[]; photonInMainThread: boolean };
		const piRead = pi.createReadToolDefinition(project) as unknown as {
			execute: (id: string, params: Record<string, unknown>) => Promise<{ content: unknown[] }>;
		};
		const theirs = await piRead.execute("c", { path: "photo.jpg" });
		expect(ours).toEqual({ content: theirs.content, photonInMainThread: false });
		expect(JSON.stringify(ours.content[0])).toContain("displayed at 2000x1500");
		// The CLI's @file image: the same resized bytes in the user message.
		const run = settleCommand(["--faux", "--no-session", "--json", "@photo.jpg", "see?"]);
		expect(run.stderr).toBe("");
		const user = run.stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: unknown[] } })
			.find((event) => event.type === "message_end" && event.message?.role === "user");
		expect(user?.message?.content[1]).toEqual(theirs.content[1]);
	}, 120_000);

	it("loads an extension importing settle and a pi extension with value imports, through the installed package", () => {
		const child = node(["load-extensions.mjs", "settle", "settle/testing", ...extensions]);
		expect(child.stderr).toBe("");
		const report = JSON.parse(child.stdout) as {
			aliases: Record<string, string>;
			errors: unknown[];
			results: Record<string, string>;
			sameSettle: boolean;
		};
		expect(report.aliases).toMatchObject({
			settle: join(installed, "dist", "index.js"),
			"settle/testing": join(installed, "dist", "testing.js"),
			"settle/inspect": join(installed, "dist", "inspect.js"),
			"@mariozechner/pi-coding-agent": join(installed, "dist", "pi-compat.js"),
		});
		expect(report.errors).toEqual([]);
		expect(report.results).toEqual(EXPECTED_RESULTS);
		// jiti imports the bundle's ES modules natively: one Settle in the process, shared classes.
		expect(report.sameSettle).toBe(true);
	});

	it("the installed `settle` command runs both extensions' tools (-e), driven by a faux script", () => {
		const script = join(root, "script.json");
		const steps = [
			{ toolCalls: [{ name: "settle_error", arguments: { code: "ABORTED" } }] },
			{ toolCalls: [{ name: "first_lines", arguments: { text: "a\nb\nc", lines: 1 } }] },
			"done",
		];
		writeFileSync(script, JSON.stringify(steps));
		const args = ["--faux-script", script, "--no-session", "--json", ...extensions.flatMap((path) => ["-e", path])];
		const result = settleCommand([...args, "go"]);
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		const toolResults = result.stdout
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

	it("gives TypeScript projects the types of all four entries (NodeNext resolution, strict)", () => {
		const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
		const args = [
			tsc,
			"--noEmit",
			"--strict",
			"--module",
			"nodenext",
			"--moduleResolution",
			"nodenext",
			"--target",
			"es2022",
			"--types",
			"node",
			"consumer.ts",
		];
		const check = node(args);
		expect(check.stdout + check.stderr).toBe("");
		expect(check.status).toBe(0);
		// A real strict type check of the declarations and their dependencies' (~7 s on an idle 2-core
		// box, 20 s seen with other suites running): more than the default 30 s leaves on a loaded CI.
	}, 120_000);
});

describe("reported races: an app that embeds the installed package", () => {
	it("pi#5226, claude-agent-sdk-typescript#150: an app bundled with esbuild runs settle with no package.json near; settle/rpc names where it looked for the CLI", () => {
		// The bundle goes to a folder with settle's dependencies installed and no package.json up to
		// the root: settle loads some of them at run time (createRequire), which esbuild leaves alone.
		const app = join(root, "app");
		mkdirSync(app);
		symlinkSync(join(project, "node_modules"), join(app, "node_modules"), "junction");
		const esbuild = join(REPO_ROOT, "node_modules", ".bin", "esbuild");
		const args = [
			"--bundle",
			"--platform=node",
			"--format=esm",
			`--outfile=${join(app, "app.mjs")}`,
			"--log-level=error",
		];
		run(esbuild, ["bundled-app.mjs", ...args], project);
		writeFileSync(join(app, "wide.png"), encodeImage("png", 2400, 60, 3, 0)); // wider than 2000 px: resized
		const bundled = () => spawnSync(process.execPath, ["app.mjs", "wide.png"], { cwd: app, encoding: "utf8" });
		const child = bundled();
		expect(child.stderr).toBe("");
		const result = JSON.parse(child.stdout) as Record<string, unknown> & { sessionFile: string };
		expect(result.reply).toEqual([{ type: "text", text: "from the bundle" }]);
		expect(readFileSync(result.sessionFile, "utf8")).toContain('"text":"from the bundle"');
		// The worker file is not in the bundle: the result says which file is missing (README: copy it).
		expect(result.resizeUnavailable).toContain(join(app, "image-resize-worker.js"));
		expect(result.rpc).toEqual({
			code: "NOT_FOUND",
			message: expect.stringContaining(`(looked for ${join(app, "cli.js")} and `),
		});
		expect((result.rpc as { message: string }).message).toContain(
			"pass cliPath (the installed node_modules/settle/dist/cli.js)",
		);
		cpSync(join(installed, "dist", "image-resize-worker.js"), join(app, "image-resize-worker.js"));
		expect(JSON.parse(bundled().stdout).resizeUnavailable).toBeUndefined();
	}, 60_000);

	it("typescript-sdk#2384, bit#10584: a SettleError from a second copy of settle (a library's own) passes instanceof and keeps its code", () => {
		const library = join(project, "node_modules", "agent-plugin");
		cpSync(installed, join(library, "node_modules", "settle"), {
			recursive: true,
			filter: (path) => !path.endsWith(".map") && !path.includes(`${join("dist", "types")}`),
		});
		writeFileSync(
			join(library, "package.json"),
			JSON.stringify({ name: "agent-plugin", type: "module", main: "index.js" }),
		);
		writeFileSync(
			join(library, "index.js"),
			'import { SettleError } from "settle";\nexport const LibrarySettleError = SettleError;\nexport function stop() { throw new SettleError("ABORTED", "stopped by the plugin"); }\n',
		);
		const host = [
			'import { normalizeError, SettleError } from "settle";',
			'import { LibrarySettleError, stop } from "agent-plugin";',
			"let caught; try { stop(); } catch (error) { caught = error; }",
			"console.log(JSON.stringify({ twoCopies: LibrarySettleError !== SettleError, instance: caught instanceof SettleError,",
			"  code: normalizeError(caught).code, reverse: new SettleError('IO', 'x') instanceof LibrarySettleError,",
			"  plainError: new Error('x') instanceof SettleError, notAnError: ({ code: 'IO' }) instanceof SettleError }));",
		].join("\n");
		writeFileSync(join(project, "two-copies.mjs"), host);
		const child = node(["two-copies.mjs"]);
		expect(child.stderr).toBe("");
		expect(JSON.parse(child.stdout)).toEqual({
			twoCopies: true,
			instance: true,
			code: "ABORTED",
			reverse: true,
			plainError: false,
			notAnError: false,
		});
	});

	it("openai-agents-js#175: settle installs no exit on SIGTERM and no crash handlers: the host's own SIGTERM drain finishes; without one, SIGTERM ends the process", () => {
		const drained = node(["host-signals.mjs", "drain"]);
		expect(drained.stderr).toBe("");
		expect({ status: drained.status, signal: drained.signal }).toEqual({ status: 0, signal: null });
		expect(drained.stdout.trim().split("\n")).toEqual(['{"uncaughtException":0,"unhandledRejection":0}', "drained"]);
		const plain = node(["host-signals.mjs"]);
		expect({ signal: plain.signal, stdout: plain.stdout.trim() }).toEqual({
			signal: "SIGTERM",
			stdout: '{"uncaughtException":0,"unhandledRejection":0}',
		});
	});

	it("open-feature/js-sdk#845: the shipped declarations import only settle's dependencies and Node's modules, never a dev dependency or the optional pi-ai", () => {
		const pkg = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
			dependencies: Record<string, string>;
		};
		const imported = new Set<string>();
		const files = readdirSync(join(installed, "dist", "types"), { recursive: true, encoding: "utf8" });
		for (const file of files.filter((name) => name.endsWith(".d.ts"))) {
			// Comments left out: TSDoc examples import settle by name.
			const text = readFileSync(join(installed, "dist", "types", file), "utf8").replace(
				/\/\*[\s\S]*?\*\/|\/\/.*$/gm,
				"",
			);
			for (const [, specifier] of text.matchAll(/(?:from |import\()"([^".][^"]*)"/g)) imported.add(specifier!);
		}
		const outside = [...imported].filter((specifier) => {
			const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;
			return !specifier.startsWith("node:") && !(name in pkg.dependencies);
		});
		expect(imported.size).toBeGreaterThan(0);
		expect(outside).toEqual([]);
	});
});
