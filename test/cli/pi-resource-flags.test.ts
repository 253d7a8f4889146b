/**
 * piflags2: pi 0.73.1's start-up flags `--skill <path>`, `--prompt-template <path>`,
 * `--no-builtin-tools`/`-nbt` and `--verbose`, which Settle refused as unknown options (exit 2),
 * so a pi user's script using them failed under `settle`. Each is run through the real `settle`
 * command on the faux model: what the model gets is the system prompt Settle emits (`--json`,
 * `--rpc`), the expanded prompt the faux model echoes (`-p`, `-i`), and the tool results of a faux
 * script's tool calls.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { baselinePrompts, RpcClient, runSettle, useCliProject } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

const cli = useCliProject("settle-piflags2-");

function settle(args: string[], input?: string) {
	return runSettle(args, { cwd: cli.project, agentDir: cli.agentDir, ...(input ? { input } : {}) });
}

/**
 * `settle --rpc <args>`: prompts `first`, waits for the run to settle, starts a new session
 * (`new_session`), prompts `second`, waits again, ends. The assistant texts, in order.
 */
async function rpcAroundNewSession(args: string[], first: string, second: string): Promise<string[]> {
	const rpc = new RpcClient(args, { cwd: cli.project, agentDir: cli.agentDir });
	for (const [id, message] of [
		["1", first],
		["3", second],
	] as const) {
		const settled = rpc.next((line) => line.type === "agent_settled");
		expect((await rpc.request({ id, type: "prompt", message })).success).toBe(true);
		await settled;
		if (id === "1") expect((await rpc.request({ id: "2", type: "new_session" })).success).toBe(true);
	}
	expect(await rpc.end()).toBe(0);
	const texts: string[] = [];
	for (const line of rpc.lines) {
		const message = line.message as { role?: string; content?: { type: string; text?: string }[] } | undefined;
		if (line.type !== "message_end" || message?.role !== "assistant") continue;
		texts.push((message.content ?? []).map((part) => part.text ?? "").join(""));
	}
	return texts;
}

function writeSkill(dir: string, name: string, marker: string): void {
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: ${marker}\n---\n${marker} BODY\n`);
}

/** A discovered skill (.settle/skills/deploy-docs) and template (.settle/prompts/greet.md). */
function addDiscovered(): void {
	writeSkill(join(cli.project, ".settle", "skills", "deploy-docs"), "deploy-docs", "DISCOVERED-SKILL-MARKER");
	mkdirSync(join(cli.project, ".settle", "prompts"), { recursive: true });
	writeFileSync(join(cli.project, ".settle", "prompts", "greet.md"), "DISCOVERED-TEMPLATE say hello\n");
}

describe("--skill <path> (piflags2)", () => {
	it("settle --json --skill <dir> --skill <file>: both are listed besides the discovered skill", () => {
		addDiscovered();
		writeSkill(join(cli.project, "shared", "lint-rules"), "lint-rules", "DIR-SKILL-MARKER");
		writeSkill(join(cli.project, "one-file"), "one-file", "FILE-SKILL-MARKER");
		const run = settle(["--faux", "--json", "--skill", "shared", "--skill", "one-file/SKILL.md", "task"]);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		const [prompt] = [...new Set(baselinePrompts(run.stdout))] as [string];
		expect(prompt).toContain("DISCOVERED-SKILL-MARKER");
		expect(prompt).toContain("DIR-SKILL-MARKER");
		expect(prompt).toContain("FILE-SKILL-MARKER");
	});

	it("settle -p -ns --skill <dir> /skill:<name>: as in pi, -ns keeps the explicit skill only", () => {
		addDiscovered();
		writeSkill(join(cli.project, "shared", "lint-rules"), "lint-rules", "DIR-SKILL-MARKER");
		const run = settle(["--faux", "-p", "-ns", "--skill", "shared", "/skill:lint-rules"]);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		// The faux model echoes the expanded prompt: the skill's body reached the model.
		expect(run.stdout).toContain("DIR-SKILL-MARKER BODY");
		const json = settle(["--faux", "--json", "-ns", "--skill", "shared", "task"]);
		const [prompt] = [...new Set(baselinePrompts(json.stdout))] as [string];
		expect(prompt).toContain("DIR-SKILL-MARKER");
		expect(prompt).not.toContain("DISCOVERED-SKILL-MARKER");
	});

	it("settle -p --skill <missing> / a colliding name: warnings on stderr, as for discovered skills", () => {
		addDiscovered();
		writeSkill(join(cli.project, "other"), "deploy-docs", "COLLIDING-SKILL-MARKER");
		const run = settle(["--faux", "-p", "--skill", "nope", "--skill", "other", "hi"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("hi\n");
		expect(run.stderr).toContain(`Skill path does not exist (${join(cli.project, "nope")})`);
		expect(run.stderr).toContain('name "deploy-docs" collision');
	});

	it("settle --rpc --skill: new_session keeps it", async () => {
		writeSkill(join(cli.project, "shared", "lint-rules"), "lint-rules", "RPC-SKILL-MARKER");
		const texts = await rpcAroundNewSession(["--faux", "--skill", "shared"], "/skill:lint-rules", "/skill:lint-rules");
		expect(texts).toHaveLength(2);
		for (const text of texts) expect(text).toContain("RPC-SKILL-MARKER BODY");
	});

	it("settle -i --skill: /skill:<name> expands, also after /new", async () => {
		writeSkill(join(cli.project, "shared", "lint-rules"), "lint-rules", "REPL-SKILL-MARKER");
		const repl = new Repl(["--faux", "--skill", "shared"], { cwd: cli.project, agentDir: cli.agentDir });
		await repl.idle(0);
		await repl.say("/skill:lint-rules", "REPL-SKILL-MARKER BODY");
		await repl.say("/new");
		await repl.say("/skill:lint-rules", "REPL-SKILL-MARKER BODY");
		expect(await repl.end()).toBe(0);
	});
});

describe("--prompt-template <path> (piflags2)", () => {
	function addTemplates(): void {
		mkdirSync(join(cli.project, "shared-prompts"), { recursive: true });
		writeFileSync(join(cli.project, "shared-prompts", "review.md"), "DIR-TEMPLATE review $1\n");
		writeFileSync(join(cli.project, "fix.md"), "FILE-TEMPLATE fix it\n");
	}

	it("settle -p --prompt-template <dir> --prompt-template <file>: both expand, and so does the discovered one", () => {
		addDiscovered();
		addTemplates();
		const args = ["--faux", "-p", "--prompt-template", "shared-prompts", "--prompt-template", "fix.md"];
		const review = settle([...args, "/review main.ts"]);
		expect(review.stderr).toBe("");
		expect(review.code).toBe(0);
		expect(review.stdout).toBe("DIR-TEMPLATE review main.ts\n\n");
		expect(settle([...args, "/fix"]).stdout).toBe("FILE-TEMPLATE fix it\n\n");
		expect(settle([...args, "/greet"]).stdout).toBe("DISCOVERED-TEMPLATE say hello\n\n");
	});

	it("settle -p -np --prompt-template <file>: as in pi, -np keeps the explicit template only", () => {
		addDiscovered();
		addTemplates();
		const fix = settle(["--faux", "-p", "-np", "--prompt-template", "fix.md", "/fix"]);
		expect(fix.stderr).toBe("");
		expect(fix.stdout).toBe("FILE-TEMPLATE fix it\n\n");
		expect(settle(["--faux", "-p", "-np", "--prompt-template", "fix.md", "/greet"]).stdout).toBe("/greet\n");
	});

	it("settle -p --prompt-template <missing> / a colliding name: warnings on stderr", () => {
		addDiscovered();
		mkdirSync(join(cli.project, "more"), { recursive: true });
		writeFileSync(join(cli.project, "more", "greet.md"), "COLLIDING-TEMPLATE\n");
		const run = settle(["--faux", "-p", "--prompt-template", "nope.md", "--prompt-template", "more", "/greet"]);
		expect(run.code).toBe(0);
		// The discovered template keeps its name, as a discovered collision does.
		expect(run.stdout).toBe("DISCOVERED-TEMPLATE say hello\n\n");
		expect(run.stderr).toContain(`Prompt template path does not exist (${join(cli.project, "nope.md")})`);
		expect(run.stderr).toContain("collision");
	});

	it("settle --rpc --prompt-template: new_session keeps it", async () => {
		addTemplates();
		const args = ["--faux", "--prompt-template", "fix.md", "--prompt-template", "shared-prompts"];
		const texts = await rpcAroundNewSession(args, "/fix", "/review a.ts");
		expect(texts).toEqual(["FILE-TEMPLATE fix it\n", "DIR-TEMPLATE review a.ts\n"]);
	});

	it("settle --rpc --prompt-template/--skill <relative>: switch_session to another project's session keeps them", async () => {
		addTemplates();
		writeSkill(join(cli.project, "shared", "lint-rules"), "lint-rules", "SWITCH-SKILL-MARKER");
		// A session of another project (its cwd is elsewhere).
		const other = join(cli.dir, "other");
		mkdirSync(other);
		expect(runSettle(["--faux", "-p", "hi"], { cwd: other, agentDir: cli.agentDir }).code).toBe(0);
		const root = join(cli.agentDir, "sessions");
		const [file] = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl"));
		const rpc = new RpcClient(["--faux", "--prompt-template", "fix.md", "--skill", "shared"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const switched = await rpc.request({ id: "1", type: "switch_session", sessionPath: join(root, file!) });
		expect(switched.success).toBe(true);
		const texts: string[] = [];
		for (const [id, message] of [
			["2", "/fix"],
			["3", "/skill:lint-rules"],
		] as const) {
			const end = rpc.next((line) => line.type === "agent_end");
			expect((await rpc.request({ id, type: "prompt", message })).success).toBe(true);
			const { messages } = (await end) as { messages: { role: string; content: { text?: string }[] }[] };
			const last = messages.at(-1)!;
			texts.push(last.content.map((part) => part.text ?? "").join(""));
		}
		expect(await rpc.end()).toBe(0);
		// As in pi (CLI paths resolved once against the start-up directory), not "/fix" echoed back.
		expect(texts[0]).toBe("FILE-TEMPLATE fix it\n");
		expect(texts[1]).toContain("SWITCH-SKILL-MARKER BODY");
		expect(rpc.stderr).not.toContain("does not exist");
	});

	it("settle -i --prompt-template: /<name> expands, also after /new", async () => {
		addTemplates();
		const repl = new Repl(["--faux", "--prompt-template", "fix.md"], { cwd: cli.project, agentDir: cli.agentDir });
		await repl.idle(0);
		await repl.say("/fix", "FILE-TEMPLATE fix it");
		await repl.say("/new");
		await repl.say("/fix", "FILE-TEMPLATE fix it");
		expect(await repl.end()).toBe(0);
	});

	it("settle --json --prompt-template: the template expands in the JSON run", () => {
		addTemplates();
		const run = settle(["--faux", "--json", "--prompt-template", "fix.md", "/fix"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain("FILE-TEMPLATE fix it");
	});
});

describe("--no-builtin-tools / -nbt (piflags2)", () => {
	/** An extension with a `weather` tool, a file to read, and a script calling `read` and `weather` (twice over). */
	function setUp(): { extension: string; script: string } {
		const extension = join(cli.dir, "weather.ts");
		writeFileSync(
			extension,
			`export default function (pi: any) {
	pi.registerTool({ name: "weather", label: "Weather", description: "Weather", parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: "sunny" }], details: {} }) });
}
`,
		);
		writeFileSync(join(cli.project, "a.txt"), "FILE-CONTENT\n");
		const calls = { toolCalls: [{ name: "read", arguments: { path: "a.txt" } }, { name: "weather" }] };
		const script = join(cli.dir, "script.json");
		writeFileSync(script, JSON.stringify([calls, "done", calls, "done"]));
		return { extension, script };
	}

	/** `tool: result text` of every tool result in JSON lines (events or session entries), without repeats. */
	function toolResults(jsonl: string): string[] {
		const results = new Set<string>();
		for (const line of jsonl.split("\n")) {
			if (!line.startsWith("{")) continue;
			const value = JSON.parse(line) as {
				message?: { role?: string; toolName?: string; content?: { type: string; text?: string }[] };
			};
			const message = value.message;
			if (message?.role !== "toolResult" || !Array.isArray(message.content)) continue;
			results.add(`${message.toolName}: ${message.content.map((part) => part.text ?? "").join("")}`);
		}
		return [...results].sort();
	}

	function sessionToolResults(): string[][] {
		const root = join(cli.agentDir, "sessions");
		return readdirSync(root, { recursive: true, encoding: "utf8" })
			.filter((name) => name.endsWith(".jsonl"))
			.sort()
			.map((name) => toolResults(readFileSync(join(root, name), "utf8")));
	}

	const OFF = ["read: Tool read not found", "weather: sunny"];

	it("settle --json -nbt: read is not found, the extension's tool runs (and both run without -nbt)", () => {
		const { extension, script } = setUp();
		const run = settle(["--faux-script", script, "-e", extension, "--json", "-nbt", "go"]);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(toolResults(run.stdout)).toEqual(OFF);
		const plain = settle(["--faux-script", script, "-e", extension, "--json", "go"]);
		expect(toolResults(plain.stdout)).toEqual(["read: FILE-CONTENT\n", "weather: sunny"]);
	});

	it("settle -p --no-builtin-tools: the same, recorded in the session", () => {
		const { extension, script } = setUp();
		const run = settle(["--faux-script", script, "-e", extension, "-p", "--no-builtin-tools", "go"]);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("done\n");
		expect(sessionToolResults()).toEqual([OFF]);
	});

	it("settle --json -nbt --tools read: as in pi, the list decides (read runs, weather is not listed)", () => {
		const { extension, script } = setUp();
		const run = settle(["--faux-script", script, "-e", extension, "--json", "-nbt", "--tools", "read", "go"]);
		expect(run.code).toBe(0);
		expect(toolResults(run.stdout)).toEqual(["read: FILE-CONTENT\n", "weather: Tool weather not found"]);
	});

	it("settle --json -nbt -nt: as in pi, -nt wins (no tool at all)", () => {
		const { extension, script } = setUp();
		const run = settle(["--faux-script", script, "-e", extension, "--json", "-nbt", "-nt", "go"]);
		expect(run.code).toBe(0);
		expect(toolResults(run.stdout)).toEqual(["read: Tool read not found", "weather: Tool weather not found"]);
	});

	it("settle --rpc -nbt: new_session keeps it", async () => {
		const { extension, script } = setUp();
		expect(await rpcAroundNewSession(["--faux-script", script, "-e", extension, "-nbt"], "one", "two")).toHaveLength(4);
		expect(sessionToolResults()).toEqual([OFF, OFF]);
	});

	it("settle -i -nbt: also after /new", async () => {
		const { extension, script } = setUp();
		const repl = new Repl(["--faux-script", script, "-e", extension, "-nbt"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await repl.idle(0);
		await repl.say("one", "done");
		await repl.say("/new");
		await repl.say("two", "done");
		expect(await repl.end()).toBe(0);
		expect(sessionToolResults()).toEqual([OFF, OFF]);
	});
});

describe("--verbose (piflags2)", () => {
	function quietStartup(): void {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ quietStartup: true }));
	}

	async function chatStart(args: string[]): Promise<string> {
		const repl = new Repl(["--faux", "--no-session", ...args], { cwd: cli.project, agentDir: cli.agentDir });
		await repl.say("hi", "hi");
		expect(await repl.end()).toBe(0);
		return repl.stdout;
	}

	it("settle -i --verbose: as in pi, the start-up banner is printed despite the quietStartup setting", async () => {
		quietStartup();
		const quiet = await chatStart([]);
		expect(quiet).not.toContain("settle interactive");
		const verbose = await chatStart(["--verbose"]);
		expect(verbose.startsWith("settle interactive\n")).toBe(true);
		expect(verbose).toContain("/help for commands");
	});

	/** The event types of JSON lines, in order (times and ids differ from run to run). */
	function eventTypes(stdout: string): string[] {
		return stdout
			.split("\n")
			.filter((line) => line !== "")
			.map((line) => String((JSON.parse(line) as { type?: unknown }).type));
	}

	it("settle -p / --json / --rpc --verbose: the output is the same as without it", () => {
		quietStartup();
		expect(settle(["--faux", "--verbose", "-p", "hi"])).toEqual({ code: 0, stdout: "hi\n", stderr: "" });
		const json = settle(["--faux", "--verbose", "--json", "hi"]);
		expect(json.stderr).toBe("");
		expect(eventTypes(json.stdout)).toEqual(eventTypes(settle(["--faux", "--json", "hi"]).stdout));
		const command = `${JSON.stringify({ id: "1", type: "get_state" })}\n`;
		const rpc = settle(["--faux", "--verbose", "--rpc"], command);
		expect(rpc.stderr).toBe("");
		expect(rpc.code).toBe(0);
		expect(eventTypes(rpc.stdout)).toEqual(eventTypes(settle(["--faux", "--rpc"], command).stdout));
	});
});

describe("settle --help (piflags2)", () => {
	it("lists the four flags", () => {
		const help = settle(["--help"]).stdout;
		expect(help).toMatch(/--skill <path> +Load a skill file or folder/);
		expect(help).toMatch(/--prompt-template <path> +Load a prompt template file or folder/);
		expect(help).toMatch(/-nbt, --no-builtin-tools +No built-in tools unless --tools names them/);
		expect(help).toMatch(/--verbose +settle -i: print the start-up banner even with the quietStartup setting/);
	});
});

describe("-e <relative path>", () => {
	it("settle --rpc -e <relative>: switch_session to another project's session keeps the extension (resolved at start-up, as pi)", async () => {
		mkdirSync(join(cli.project, "ext"));
		writeFileSync(
			join(cli.project, "ext", "hello.ts"),
			`export default function (pi: any) {
	pi.registerCommand("hello-ext", { description: "says hello", handler: async () => {} });
}
`,
		);
		const other = join(cli.dir, "other");
		mkdirSync(other);
		expect(runSettle(["--faux", "-p", "hi"], { cwd: other, agentDir: cli.agentDir }).code).toBe(0);
		const root = join(cli.agentDir, "sessions");
		const [file] = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl"));
		const rpc = new RpcClient(["--faux", "-e", "ext/hello.ts"], { cwd: cli.project, agentDir: cli.agentDir });
		const commandNames = async (id: string) => {
			const reply = await rpc.request({ id, type: "get_commands" });
			return (reply.data as { commands: { name: string }[] }).commands.map((command) => command.name);
		};
		expect(await commandNames("1")).toContain("hello-ext");
		expect((await rpc.request({ id: "2", type: "switch_session", sessionPath: join(root, file!) })).success).toBe(true);
		expect(await commandNames("3")).toContain("hello-ext");
		expect(await rpc.end()).toBe(0);
		expect(rpc.stderr).not.toContain("does not exist");
	});
});
