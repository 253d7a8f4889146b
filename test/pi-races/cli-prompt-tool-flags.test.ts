/**
 * Reports about the start-up flags that shape the system prompt and the tool set, replayed through
 * the real `settle` command (child processes) on a local OpenAI-compatible endpoint
 * (test/llm/wire/server.ts): what the user should see is read off the requests the model got.
 *
 * pi#2990: `--append-system-prompt A --append-system-prompt B` kept only B. What the user should
 * see: both appended, in order (a value naming a file read), replacing `APPEND_SYSTEM.md` as in pi.
 *
 * pi#589, pi#2835, pi#1530, oh-my-pi#8421: `--tools read,grep` let every extension tool through
 * (a `subagent` tool in a sandboxed child), and an extension tool named in `--tools` was warned
 * "Unknown tool" and dropped (or refused). What the user should see: exactly the listed tools sent,
 * an extension's tool among them when listed, with no warning.
 *
 * aelix-ai#120, claude-engineer#233: with no tools the prompt still spoke of tools: the model was
 * told of tools "listed below" with nothing listed, and claimed tools it did not have. What the
 * user should see: `--no-tools` sends no tools and the prompt's tool list says `(none)`, as pi's;
 * `--tools read` lists only `read` and no guideline names bash.
 *
 * oh-my-pi#5305: `--no-tools` turned every tool off but one an extension registered
 * (`generate_image`), which the model was still offered. What the user should see: no tool at all
 * sent, the extension's neither, and `--no-builtin-tools` keeping only the extension's.
 *
 * pi#6498, pi#1252: `pi -nt --system-prompt …` then `pi -c`: the resumed session got the default
 * tools back (a read-only agent could write) and the default prompt (the persona gone) without a
 * word. What the user should see: `-c` keeps the tool set the session ran with; the base prompt is
 * the run's, as in pi, and a run that does not give the session's says so on stderr.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-prompt-tool-flags-");
const server = useWireServer();
beforeEach(() => writeLocalProvider(cli.agentDir, `${server.url}/v1`));

function settle(args: string[]) {
	return runSettleAsync(["--model", "local/coder", ...args], { cwd: cli.project, agentDir: cli.agentDir });
}

/** The system message of the `index`th request. */
function systemPrompt(index: number): string {
	const messages = server.requests[index]?.body.messages as { role: string; content: unknown }[];
	const first = messages[0]!;
	return typeof first.content === "string"
		? first.content
		: (first.content as { text: string }[]).map((part) => part.text).join("");
}

/** The names of the tools the `index`th request offered. */
function toolNames(index: number): string[] {
	const tools = (server.requests[index]?.body.tools ?? []) as { function: { name: string } }[];
	return tools.map((tool) => tool.function.name).sort();
}

/** An extension registering a `subagent` tool (with a prompt snippet), as pi-subagents does. */
function writeSubagentExtension(): string {
	const file = join(cli.project, "subagents.ts");
	writeFileSync(
		file,
		`export default function (pi) {
	pi.registerTool({
		name: "subagent",
		label: "subagent",
		description: "Delegates a task to a child agent",
		promptSnippet: "Delegate a task to a child agent",
		parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: "delegated" }], details: {} }),
	});
}
`,
	);
	return file;
}

describe("pi#2990: --append-system-prompt given twice", () => {
	it("pi#2990: settle -p --append-system-prompt <file> --append-system-prompt <text> with APPEND_SYSTEM.md present: both reach the request, in order, in place of the file", async () => {
		writeFileSync(join(cli.project, "house-rules.md"), "FIRST-APPEND: answer in English\n");
		mkdirSync(join(cli.project, ".settle"), { recursive: true });
		writeFileSync(join(cli.project, ".settle", "APPEND_SYSTEM.md"), "APPEND-FILE-MARKER\n");
		server.reply(chatReply([{ type: "text", text: "ok" }]));

		const run = await settle([
			"--no-session",
			"-p",
			"--append-system-prompt",
			"house-rules.md",
			"--append-system-prompt",
			"SECOND-APPEND: one line only",
			"hi",
		]);

		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("ok\n");
		const prompt = systemPrompt(0);
		expect(prompt).toContain("FIRST-APPEND: answer in English\n\nSECOND-APPEND: one line only");
		expect(prompt).not.toContain("APPEND-FILE-MARKER");
		expect(prompt).not.toContain("house-rules.md");
	});
});

describe("pi#589 / pi#2835 / pi#1530 / oh-my-pi#8421: --tools and extension tools", () => {
	it("pi#1530: settle -p -e subagents.ts --tools read,grep: only read and grep are offered, the extension's subagent is not", async () => {
		const extension = writeSubagentExtension();
		server.reply(chatReply([{ type: "text", text: "ok" }]));

		const run = await settle(["--no-session", "-e", extension, "--tools", "read,grep", "-p", "list your tools"]);

		expect(run.stderr).toBe("");
		expect(toolNames(0)).toEqual(["grep", "read"]);
		expect(systemPrompt(0)).not.toContain("subagent");
	});

	it("oh-my-pi#8421: settle -p -e subagents.ts --tools read,subagent: the extension's tool is allowed by name, without a warning", async () => {
		const extension = writeSubagentExtension();
		server.reply(chatReply([{ type: "text", text: "ok" }]));

		const run = await settle(["--no-session", "-e", extension, "--tools", "read,subagent", "-p", "delegate"]);

		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("ok\n");
		expect(toolNames(0)).toEqual(["read", "subagent"]);
		expect(systemPrompt(0)).toContain("- subagent: Delegate a task to a child agent");
	});
});

describe("oh-my-pi#5305: --no-tools and an extension's tool", () => {
	it("oh-my-pi#5305: settle -p -e subagents.ts --no-tools sends no tool, the extension's neither; -nbt keeps only the extension's", async () => {
		const extension = writeSubagentExtension();
		server.reply(chatReply([{ type: "text", text: "ok" }]), chatReply([{ type: "text", text: "ok" }]));

		const none = await settle(["--no-session", "-e", extension, "--no-tools", "-p", "delegate"]);
		const builtinsOff = await settle(["--no-session", "-e", extension, "--no-builtin-tools", "-p", "delegate"]);

		expect(none).toMatchObject({ code: 0, stdout: "ok\n" });
		expect(toolNames(0)).toEqual([]);
		expect(systemPrompt(0)).not.toContain("subagent");
		expect(builtinsOff).toMatchObject({ code: 0, stdout: "ok\n" });
		expect(toolNames(1)).toEqual(["subagent"]);
	});
});

describe("aelix-ai#120 / claude-engineer#233: what the model is told about tools it does not have", () => {
	it("aelix-ai#120: settle -p --no-tools: no tools are sent and the prompt's tool list says (none)", async () => {
		server.reply(chatReply([{ type: "text", text: "ok" }]));

		const run = await settle(["--no-session", "--no-tools", "-p", "can you read a file?"]);

		expect(run.stdout).toBe("ok\n");
		expect(toolNames(0)).toEqual([]);
		expect(systemPrompt(0)).toContain("<tools>\n(none)\n</tools>");
		expect(systemPrompt(0)).not.toContain("bash");
	});

	it("aelix-ai#120: settle -p --tools read: only read is listed, and no guideline mentions bash", async () => {
		server.reply(chatReply([{ type: "text", text: "ok" }]));

		const run = await settle(["--no-session", "--tools", "read", "-p", "can you run a command?"]);

		expect(run.stdout).toBe("ok\n");
		expect(toolNames(0)).toEqual(["read"]);
		const prompt = systemPrompt(0);
		expect(prompt).toMatch(/<tools>\n- read: [^\n]*\n<\/tools>/);
		expect(prompt).not.toContain("bash");
	});
});

describe("pi#6498 / pi#1252: a resumed session's tools", () => {
	it("pi#6498: settle -p -nt, then settle -p -c: the resumed session still has no tools", async () => {
		server.reply(chatReply([{ type: "text", text: "first" }]), chatReply([{ type: "text", text: "second" }]));

		expect((await settle(["-nt", "-p", "just talk"])).stdout).toBe("first\n");
		const resumed = await settle(["-c", "-p", "write a file"]);

		expect(resumed.stdout).toBe("second\n");
		expect(toolNames(0)).toEqual([]);
		expect(toolNames(1)).toEqual([]);
		expect(systemPrompt(1)).toContain("<tools>\n(none)\n</tools>");
	});

	it("pi#6498: settle -p --tools read,grep, then settle -p -c: the resumed session keeps read and grep", async () => {
		server.reply(chatReply([{ type: "text", text: "first" }]), chatReply([{ type: "text", text: "second" }]));

		await settle(["--tools", "read,grep", "-p", "look around"]);
		await settle(["-c", "-p", "now edit"]);

		expect(toolNames(1)).toEqual(["grep", "read"]);
	});

	it("pi#1252: settle -p --system-prompt robot.md, then settle -p -c: a warning says the session's base prompt is not given; giving it again keeps it without one", async () => {
		writeFileSync(join(cli.project, "robot.md"), "ROBOT-MARKER: start every answer with BEEP BOOP\n");
		server.reply(
			chatReply([{ type: "text", text: "BEEP BOOP: hi" }]),
			chatReply([{ type: "text", text: "hello" }]),
			chatReply([{ type: "text", text: "BEEP BOOP: again" }]),
		);

		const first = await settle(["--system-prompt", "robot.md", "-p", "hi"]);
		expect(first.stderr).toBe("");
		const dropped = await settle(["-c", "-p", "who are you?"]);
		const kept = await settle(["-c", "--system-prompt", "robot.md", "-p", "and now?"]);

		expect(systemPrompt(0).startsWith("ROBOT-MARKER")).toBe(true);
		expect(dropped.stdout).toBe("hello\n");
		expect(dropped.stderr).toContain(
			"this session ran with another base system prompt (from --system-prompt or SYSTEM.md) than this run gives; its next request uses this run's. Give the same --system-prompt again to keep the session's.",
		);
		expect(systemPrompt(1)).not.toContain("ROBOT-MARKER");
		expect(kept.stderr).toBe("");
		expect(systemPrompt(2).startsWith("ROBOT-MARKER")).toBe(true);
	});

	it("pi#1252: an extension that sets the base prompt for each operation: settle -p -c with it warns of nothing, its prompt applies again", async () => {
		const extension = join(cli.project, "persona.ts");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.on("before_agent_start", (event) => {
		event.systemPromptOptions.customPrompt = "PERSONA-MARKER: you are a pirate";
	});
}
`,
		);
		server.reply(chatReply([{ type: "text", text: "arr" }]), chatReply([{ type: "text", text: "arr again" }]));

		await settle(["-e", extension, "-p", "hi"]);
		const resumed = await settle(["-e", extension, "-c", "-p", "who are you?"]);

		expect(resumed.stderr).toBe("");
		expect(resumed.stdout).toBe("arr again\n");
		expect(systemPrompt(0).startsWith("PERSONA-MARKER")).toBe(true);
		expect(systemPrompt(1).startsWith("PERSONA-MARKER")).toBe(true);
	});
});
