/**
 * Reports about loading extensions and what they register at load time, replayed against real
 * `settle` child processes with extension files on disk.
 *
 * - pi#8064: `pi.registerFlag("plan", { type: "boolean", default: "false" })` (a string default on a
 *   boolean flag) made `getFlag("plan")` return the truthy string `"false"` when the flag was not
 *   given: the option was on unless the user passed it. Settle refuses the registration, so the
 *   extension fails to load with an error naming the flag and the default to write.
 * - pi#3614: `pi.registerFlag("no-repo-map", …)` read back with `pi.getFlag("--no-repo-map")`, as the
 *   docs wrote it, was always undefined: the guard never fired, the feature stayed on although the
 *   user passed the flag. Settle reads the flag with or without its leading `--`.
 * - pi#7406: a guard extension takes `bash` out of the active set; another extension registers a
 *   tool at run time (an MCP bridge from `before_agent_start`), and the refresh that follows must
 *   activate only the new tool. With a `--tools` allowlist (SDK `tools`) every refresh activated
 *   every allowed tool again, `bash` among them. Driven through the SDK harness on the faux model.
 * - pi#9824: `ctx.sessionManager.getEntries()` handed out the session's own entry objects: a tool
 *   that assigned `entry.message.content[0].text` rewrote what the model was sent next, while the
 *   file kept the old text. Settle gives each read a frozen copy: the assignment throws.
 * - oh-my-pi#5664, pi#4791: an extension's own `setTimeout` / `setInterval` callback that throws (a
 *   quota poller reading a stale ctx in pi#4791) runs outside every handler's try/catch: the
 *   uncaught exception ended the whole process, the session with it. Settle reports it as that
 *   extension's `uncaught` error and the session goes on. A real `settle --rpc` child process.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { fileEntries, script, textOf } from "./helpers.js";

const cli = useCliProject("settle-pi-races-ext-loading-");

describe("pi#8064: an extension flag whose default disagrees with its type", () => {
	const planExtension = (flagOptions: string) =>
		`export default function (pi: any) {
	pi.registerFlag("plan", ${flagOptions});
	pi.on("session_start", (_e: unknown, ctx: any) => ctx.ui.notify("plan=" + JSON.stringify(pi.getFlag("plan"))));
}
`;

	it('pi#8064: a boolean flag with default "false" fails to load, saying which default to write; nothing runs with plan mode on', () => {
		const extension = join(cli.dir, "plan.ts");
		writeFileSync(extension, planExtension(`{ type: "boolean", default: "false", description: "Plan first" }`));
		const run = cli.settle(["--faux", "--no-session", "-e", extension, "-p", "hi"]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(
			`pi.registerFlag("plan") has type "boolean" but default "false" (a string): give a boolean default, e.g. default: false.`,
		);
		expect(run.stderr).not.toContain("plan=");
	});

	it("pi#8064: a string flag with a boolean default fails to load the same way", () => {
		const extension = join(cli.dir, "mode.ts");
		writeFileSync(extension, planExtension(`{ type: "string", default: true }`));
		const run = cli.settle(["--faux", "--no-session", "-e", extension, "-p", "hi"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(
			`pi.registerFlag("plan") has type "string" but default true (a boolean): give a string default, e.g. default: "".`,
		);
	});

	it("pi#8064: a boolean default of the right type reads false until --plan is given", () => {
		const extension = join(cli.dir, "plan.ts");
		writeFileSync(extension, planExtension(`{ type: "boolean", default: false }`));
		const off = cli.settle(["--faux", "--no-session", "-e", extension, "-p", "hi"]);
		expect(off).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(off.stderr).toContain("plan=false");
		const on = cli.settle(["--faux", "--no-session", "-e", extension, "--plan", "-p", "hi"]);
		expect(on).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(on.stderr).toContain("plan=true");
	});
});

describe("pi#3614: getFlag with the leading dashes the user types", () => {
	it('pi#3614: getFlag("--no-repo-map") and getFlag("no-repo-map") both read the flag, given or not', () => {
		const extension = join(cli.dir, "repo-map.ts");
		writeFileSync(
			extension,
			`export default function (pi: any) {
	pi.registerFlag("no-repo-map", { type: "boolean", default: false });
	pi.registerFlag("map-depth", { type: "string" });
	pi.on("session_start", (_e: unknown, ctx: any) =>
		ctx.ui.notify("flags=" + JSON.stringify([pi.getFlag("--no-repo-map"), pi.getFlag("no-repo-map"), pi.getFlag("--map-depth")])),
	);
}
`,
		);
		const plain = cli.settle(["--faux", "--no-session", "-e", extension, "-p", "hi"]);
		expect(plain).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(plain.stderr).toContain("flags=[false,false,null]");
		const given = cli.settle(["--faux", "--no-session", "-e", extension, "--no-repo-map", "--map-depth=2", "-p", "hi"]);
		expect(given).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(given.stderr).toContain('flags=[true,true,"2"]');
	});
});

describe("pi#7406: a tool registered at run time re-activates one a guard extension turned off", () => {
	let h: Harness | undefined;
	afterEach(() => h?.cleanup());

	function bridgeTool(pi: ExtensionAPI, description: string): void {
		pi.registerTool({
			name: "mcp_search",
			label: "mcp_search",
			description,
			parameters: { type: "object", properties: {} },
			execute: async () => ({ content: [{ type: "text", text: "found" }], details: {} }),
		});
	}

	/** A guard that turns `bash` off at start-up, and a bridge that registers its tool lazily, twice. */
	const extensions = [
		(pi: ExtensionAPI) =>
			pi.on("session_start", () => pi.setActiveTools(pi.getActiveTools().filter((name) => name !== "bash"))),
		(pi: ExtensionAPI) => {
			let connects = 0;
			pi.on("before_agent_start", () => {
				connects++;
				// The second connect re-registers in place (the server announced list_changed).
				bridgeTool(pi, `search, version ${connects}`);
			});
		},
	];

	for (const [label, tools] of [
		["with a --tools allowlist", ["read", "bash", "mcp_search"]],
		["without an allowlist", undefined],
	] as const) {
		it(`pi#7406: ${label}, bash stays off in every request; the bridge's new tool is on`, async () => {
			h = await createHarness({ extensionFactories: extensions, ...(tools ? { tools: [...tools] } : {}) });
			const toolsOf = (i: number) => h!.faux.requests[i]!.tools?.map((tool) => tool.name) ?? [];
			expect(h.session.getActiveToolNames()).not.toContain("bash");

			script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
			await h.session.prompt("first");
			await h.session.prompt("second");
			expect(toolsOf(0)).toContain("mcp_search");
			expect(toolsOf(0)).not.toContain("bash");
			expect(toolsOf(1)).not.toContain("bash");
			expect(h.faux.requests[1]!.tools?.find((tool) => tool.name === "mcp_search")?.description).toBe(
				"search, version 2",
			);
			expect(h.session.getActiveToolNames()).not.toContain("bash");
		});
	}
});

describe("oh-my-pi#5664, pi#4791: an extension's own timer or promise throws outside its handlers", () => {
	/** Commands that leave a throwing timer and a rejected promise nobody awaits, then return. */
	const POLLER = `export default function (pi) {
	pi.registerCommand("poll", {
		description: "starts a quota poller that fails",
		handler: async () => {
			setTimeout(() => {
				throw new Error("quota endpoint down");
			}, 0);
		},
	});
	pi.registerCommand("fetch", {
		description: "fetches without awaiting",
		handler: async () => {
			Promise.reject(new Error("never awaited"));
		},
	});
}
`;

	it("oh-my-pi#5664: settle --rpc reports each as the extension's uncaught error, and the session answers the next prompt", async () => {
		const extension = join(cli.dir, "poller.mjs");
		writeFileSync(extension, POLLER);
		const client = new RpcClient(["--faux", "--no-session", "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		/** The next line matching, or a failure naming the exit when the process ends first. */
		const next = (match: (line: Record<string, unknown>) => boolean) =>
			Promise.race([
				client.next(match),
				client.exited.then((code) => {
					throw new Error(`settle exited with ${code} first: ${client.stderr}`);
				}),
			]);
		const uncaught = (line: Record<string, unknown>) => line.type === "extension_error" && line.event === "uncaught";

		const timerError = next(uncaught);
		expect(await client.request({ id: "1", type: "prompt", message: "/poll" })).toMatchObject({ success: true });
		expect(await timerError).toEqual({
			type: "extension_error",
			extensionPath: extension,
			event: "uncaught",
			error: "quota endpoint down",
		});

		const rejection = next(uncaught);
		expect(await client.request({ id: "2", type: "prompt", message: "/fetch" })).toMatchObject({ success: true });
		expect(await rejection).toMatchObject({ extensionPath: extension, error: "never awaited" });

		const settled = next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "3", type: "prompt", message: "still there?" })).toMatchObject({
			success: true,
		});
		await settled;
		const messages = (await client.request({ id: "4", type: "get_messages" })) as {
			data: { messages: { role: string }[] };
		};
		const roles = messages.data.messages.map((message) => message.role).filter((role) => role !== "system");
		expect(roles).toEqual(["user", "assistant"]);
		expect(await client.end()).toBe(0);
	});

	it("oh-my-pi#5664: a throw from code of no loaded extension still ends settle --rpc with exit code 1 and its stack", async () => {
		mkdirSync(join(cli.dir, "lib"));
		const helper = join(cli.dir, "lib", "boom.mjs");
		writeFileSync(
			helper,
			`export function later() {\n\tsetTimeout(() => {\n\t\tthrow new Error("not the extension's");\n\t}, 0);\n}\n`,
		);
		const extension = join(cli.dir, "caller.mjs");
		writeFileSync(
			extension,
			`import { later } from "./lib/boom.mjs";\nexport default function (pi) {\n\tpi.registerCommand("later", { handler: async () => later() });\n}\n`,
		);
		const client = new RpcClient(["--faux", "--no-session", "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		client.send({ id: "1", type: "prompt", message: "/later" });
		expect(await client.exited).toBe(1);
		expect(client.stderr).toContain("Error: not the extension's");
		expect(client.stderr).toContain(helper);
		expect(client.lines.some((line) => line.type === "extension_error")).toBe(false);
	});
});

describe("pi#9824: entries read through ctx.sessionManager are the session's own objects", () => {
	let h: Harness | undefined;
	afterEach(() => h?.cleanup());

	it("pi#9824: a tool's assignment to the user's text in the entries it read throws a TypeError; the next request, the context and the file keep the text", async () => {
		const seen: string[] = [];
		const refused: string[] = [];
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.registerTool({
						name: "greet",
						label: "Greet",
						description: "greets",
						parameters: { type: "object", properties: {} },
						execute: async (_id, _params, _signal, _onUpdate, ctx) => {
							const asked = ctx.sessionManager
								.getBranch()
								.find((entry) => entry.type === "message" && entry.message.role === "user")!;
							const reads = [
								ctx.sessionManager.getEntries(),
								ctx.sessionManager.getBranch(),
								[ctx.sessionManager.getEntry(asked.id)!],
							];
							for (const entries of reads) {
								for (const entry of entries) {
									if (entry.type !== "message" || entry.message.role !== "user") continue;
									const content = entry.message.content;
									try {
										if (typeof content === "string") (entry.message as { content: unknown }).content = "MUTATED";
										else for (const block of content) if (block.type === "text") block.text = "MUTATED";
										refused.push("assigned");
									} catch (error) {
										refused.push(error instanceof TypeError ? "TypeError" : String(error));
									}
								}
							}
							const first = ctx.sessionManager
								.getEntries()
								.find((entry) => entry.type === "message" && entry.message.role === "user");
							seen.push(first?.type === "message" ? (textOf(first.message) ?? "") : "");
							return { content: [{ type: "text", text: "hello" }], details: {} };
						},
					}),
			],
		});
		script(h, [
			fauxAssistantMessage([fauxToolCall("greet", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("greet the team");
		expect(refused).toEqual(["TypeError", "TypeError", "TypeError"]);
		expect(seen).toEqual(["greet the team"]);
		const userTexts = (messages: readonly AgentMessage[]) => messages.flatMap((message) => textOf(message) ?? []);
		expect(userTexts(h.faux.requests[1]!.messages)).toEqual(["greet the team"]);
		expect(userTexts(h.session.messages)).toEqual(["greet the team"]);
		const saved = fileEntries(h.session.sessionFile!).filter((entry) => entry.message?.role === "user");
		expect(saved.map((entry) => textOf(entry.message!))).toEqual(["greet the team"]);
	});
});
