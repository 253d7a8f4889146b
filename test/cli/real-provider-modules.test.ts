/**
 * What a `settle -p` process loads to answer on a real provider: pi-ai's catalogue, `streamSimple`
 * and the one provider client the model's wire API needs, not pi-ai's whole index, whose typebox
 * compiler (~680 modules, ~0.2 s of CPU) Settle never calls: a cost paid on every start.
 * And on the faux model, nothing of pi's, no provider SDK, no extension loader, no schema code.
 * The child records each module it loads through a module hook (NODE_OPTIONS `--import`), and the
 * CommonJS files it required when it exits.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "./helpers.js";

const cli = useCliProject("settle-provider-modules-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

/**
 * Writes the hook files; returns the NODE_OPTIONS that load them and the log of loaded module URLs
 * (ES modules as they load, then every CommonJS file in the require cache when the process exits).
 */
function recordLoads(dir: string): { nodeOptions: string; log: string } {
	const log = join(dir, "loaded.txt");
	writeFileSync(log, "");
	const hooks = join(dir, "hooks.mjs");
	writeFileSync(
		hooks,
		`import { appendFileSync } from "node:fs";\n` +
			`export async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + "\\n"); return next(url, context); }\n`,
	);
	const register = join(dir, "register.mjs");
	writeFileSync(
		register,
		`import { appendFileSync } from "node:fs";\nimport { createRequire, register } from "node:module";\n` +
			`register(${JSON.stringify(pathToFileURL(hooks).href)});\n` +
			`process.on("exit", () => appendFileSync(${JSON.stringify(log)}, Object.keys(createRequire(import.meta.url).cache).join("\\n") + "\\n"));\n`,
	);
	return { nodeOptions: `--import ${pathToFileURL(register).href}`, log };
}

/** Package names (`name`, `@scope/name`) of the node_modules files in a load log. */
function packagesIn(log: string): Set<string> {
	const packages = new Set<string>();
	for (const line of readFileSync(log, "utf8").split("\n")) {
		const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line.replaceAll("\\", "/"));
		if (match) packages.add(match[1]!);
	}
	return packages;
}

/** Loaded by a run that needs them only: a provider request, an extension file, a tool call, a diagram. */
const NOT_ON_FAUX_START = [
	"@mariozechner/pi-ai",
	"@mariozechner/pi-agent-core",
	"@mariozechner/pi-coding-agent",
	"openai",
	"@anthropic-ai/sdk",
	"@google/genai",
	"jiti",
	"typebox",
	"@sinclair/typebox",
	"ajv",
	"yaml",
	"diff",
	"@dagrejs/dagre",
	"@silvia-odwyer/photon-node",
	"ignore",
	"picomatch",
];

describe("settle -p on the faux model", () => {
	it("loads none of pi's packages, no provider SDK, no extension loader and no schema code", async () => {
		const { nodeOptions, log } = recordLoads(cli.dir);

		const run = await runSettleAsync(["-p", "--faux", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NODE_OPTIONS: nodeOptions },
		});

		expect(run.stderr).toBe("");
		expect(run.stdout.trim()).toBe("hi");
		const packages = packagesIn(log);
		expect(packages.has("xstate")).toBe(true); // the recorder sees the CommonJS files
		expect(packages.has("proper-lockfile")).toBe(true); // the session file is written under its lock
		expect(NOT_ON_FAUX_START.filter((name) => packages.has(name))).toEqual([]);
	});
});

describe("settle -p on a real provider", () => {
	it("answers through pi-ai's Chat Completions client without loading pi-ai's typebox validators", async () => {
		server = await startWireServer();
		server.reply(chatReply([{ type: "text", text: "Hello from the wire." }], { model: "coder" }));
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const { nodeOptions, log } = recordLoads(cli.dir);

		const run = await runSettleAsync(["-p", "--model", "local/coder", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NODE_OPTIONS: nodeOptions },
		});

		expect(run.stderr).toBe("");
		expect(run.stdout.trim()).toBe("Hello from the wire.");
		const loaded = readFileSync(log, "utf8").split("\n");
		expect(loaded.some((url) => url.includes("/@mariozechner/pi-ai/dist/providers/openai-completions.js"))).toBe(true);
		expect(loaded.filter((url) => url.includes("/node_modules/typebox/"))).toEqual([]);
	});
});
