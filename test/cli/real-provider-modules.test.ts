/**
 * What a `settle -p` process loads to answer on a real provider: pi-ai's catalogue, `streamSimple`
 * and the one provider client the model's wire API needs, not pi-ai's whole index, whose typebox
 * compiler (~680 modules, ~0.2 s of CPU) Settle never calls: a cost paid on every start.
 * The child records each module it loads through a module hook (NODE_OPTIONS `--import`).
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

/** Writes the hook files; returns the NODE_OPTIONS that load them and the log of loaded module URLs. */
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
		`import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
	);
	return { nodeOptions: `--import ${pathToFileURL(register).href}`, log };
}

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
