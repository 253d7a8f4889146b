/**
 * `settle --rpc` against pi 0.73.1's RPC protocol (modes/rpc/rpc-mode.js), as a host drives it: a
 * real child process, JSON lines in and out. Each test is named after the difference from pi it
 * pins down.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { getModels } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { RpcClient as SdkRpcClient } from "../../src/rpc/index.js";
import { cliCommand, RpcClient, useCliProject, writeLocalProvider } from "./helpers.js";

const cli = useCliProject("settle-rpc-");

function rpc(args: string[] = []): RpcClient {
	return new RpcClient(args, { cwd: cli.project, agentDir: cli.agentDir });
}

function script(steps: unknown[]): string {
	const file = join(cli.dir, `script-${Math.random().toString(36).slice(2)}.json`);
	writeFileSync(file, JSON.stringify(steps));
	return file;
}

describe("settle --rpc: pi's commands", () => {
	it("regression: set_model of a model that cannot be selected said only 'Model not found', without the fix --model's error gives", async () => {
		const anthropic = getModels("anthropic")[0]!.id;
		// No key for anthropic anywhere: its models are known but cannot be selected.
		const server = new RpcClient([], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_OAUTH_TOKEN: undefined },
		});
		const unknown = await server.request({ id: "1", type: "set_model", provider: "anthropic", modelId: "claude-nope" });
		expect(unknown).toMatchObject({ id: "1", command: "set_model", success: false });
		// pi's text first (clients match it), then what the provider serves, the known providers, where to look.
		expect(unknown.error).toMatch(
			/^Model not found: anthropic\/claude-nope\. anthropic serves: .*\. Known providers: .*\banthropic\b.*\bopenai\b.*; get_available_models lists the models you can select\.$/,
		);
		const noKey = await server.request({ id: "2", type: "set_model", provider: "anthropic", modelId: anthropic });
		expect(noKey).toEqual({
			id: "2",
			type: "response",
			command: "set_model",
			success: false,
			error: `Model not found: anthropic/${anthropic}: anthropic has no credentials. Set its key in the environment of settle (ANTHROPIC_OAUTH_TOKEN or ANTHROPIC_API_KEY) or in ${join(cli.agentDir, "auth.json")}, then send set_model again; get_available_models lists the models you can select.`,
		});
		expect(await server.end()).toBe(0);
	});

	it("regression: pi's model, thinking, queue, retry, bash, stats and clone commands answered 'Unknown command'", async () => {
		const server = rpc(["--faux"]);
		const settled = server.next((line) => line.type === "agent_settled");
		await server.request({ id: "p", type: "prompt", message: "hello" });
		await settled;

		const models = await server.request({ id: "1", type: "get_available_models" });
		expect(models).toMatchObject({ success: true, data: { models: [{ provider: "faux", id: "faux-1" }] } });
		expect(await server.request({ id: "2", type: "set_model", provider: "faux", modelId: "faux-1" })).toMatchObject({
			success: true,
			data: { provider: "faux", id: "faux-1" },
		});
		expect(await server.request({ id: "3", type: "set_model", provider: "faux", modelId: "nope" })).toEqual({
			id: "3",
			type: "response",
			command: "set_model",
			success: false,
			error:
				"Model not found: faux/nope. faux serves: faux-1. Known providers: faux; get_available_models lists the models you can select.",
		});
		// One model only: nothing to cycle to (pi answers null).
		expect(await server.request({ id: "4", type: "cycle_model" })).toMatchObject({ success: true, data: null });
		// faux-1 has no reasoning: pi answers null.
		expect(await server.request({ id: "5", type: "cycle_thinking_level" })).toMatchObject({
			success: true,
			data: null,
		});

		for (const [id, command] of [
			["6", { type: "set_steering_mode", mode: "all" }],
			["7", { type: "set_follow_up_mode", mode: "all" }],
			["8", { type: "set_auto_compaction", enabled: false }],
			["9", { type: "set_auto_retry", enabled: false }],
			["10", { type: "abort_bash" }],
		] as const) {
			expect(await server.request({ id, ...command })).toEqual({
				id,
				type: "response",
				command: command.type,
				success: true,
			});
		}
		expect((await server.request({ id: "11", type: "get_state" })).data).toMatchObject({
			steeringMode: "all",
			followUpMode: "all",
			autoCompactionEnabled: false,
		});

		const stats = (await server.request({ id: "12", type: "get_session_stats" })).data as Record<string, unknown>;
		expect(stats).toMatchObject({ userMessages: 1, assistantMessages: 1, toolCalls: 0 });
		const before = (await server.request({ id: "13", type: "get_state" })).data as { sessionFile: string };
		expect(await server.request({ id: "14", type: "clone" })).toMatchObject({
			success: true,
			data: { cancelled: false },
		});
		const cloned = (await server.request({ id: "15", type: "get_messages" })).data as {
			messages: { role: string }[];
		};
		expect(cloned.messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant"]);
		const clonedFile = ((await server.request({ id: "16", type: "get_state" })).data as { sessionFile: string })
			.sessionFile;
		expect(clonedFile).not.toBe(before.sessionFile);
		// pi's default name, in the cwd: settle-session-<session file name>.html (pi: pi-session-…).
		const exported = await server.request({ id: "17", type: "export_html" });
		const name = `settle-session-${basename(clonedFile, ".jsonl")}.html`;
		expect(exported).toEqual({
			id: "17",
			type: "response",
			command: "export_html",
			success: true,
			data: { path: name },
		});
		expect(readFileSync(join(cli.project, name), "utf8")).toContain(
			'<script type="application/json" id="session-data">',
		);
		expect(await server.end()).toBe(0);
		expect(server.stderr).toBe("");
	});

	it("regression: a command without a required field ran anyway (bash ran the shell word `undefined`) or failed with 'Cannot read properties of undefined'", async () => {
		const server = rpc(["--faux", "--no-session"]);
		const cases: [Record<string, unknown>, string][] = [
			[{ type: "prompt" }, 'prompt: "message" must be a string (it is missing)'],
			[{ type: "steer", message: 3 }, 'steer: "message" must be a string (got 3)'],
			[{ type: "follow_up" }, 'follow_up: "message" must be a string (it is missing)'],
			[{ type: "bash" }, 'bash: "command" must be a string (it is missing)'],
			[{ type: "switch_session" }, 'switch_session: "sessionPath" must be a string (it is missing)'],
			[{ type: "fork" }, 'fork: "entryId" must be a string (it is missing)'],
			[{ type: "set_model", provider: "faux" }, 'set_model: "modelId" must be a string (it is missing)'],
			[
				{ type: "set_steering_mode", mode: "some" },
				'set_steering_mode: "mode" must be "all" or "one-at-a-time" (got "some")',
			],
			[{ type: "set_auto_retry", enabled: "yes" }, 'set_auto_retry: "enabled" must be true or false (got "yes")'],
		];
		for (const [index, [command, error]] of cases.entries()) {
			expect(await server.request({ id: `m${index}`, ...command })).toEqual({
				id: `m${index}`,
				type: "response",
				command: command.type,
				success: false,
				error,
			});
		}
		const messages = (await server.request({ id: "last", type: "get_messages" })).data as { messages: unknown[] };
		expect(messages.messages).toEqual([]);
		expect(await server.end()).toBe(0);
	});

	it("a compact command whose summary request fails transiently streams pi 1.6's summarization_retry_* lines", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ compaction: { keepRecentTokens: 20 }, retry: { baseDelayMs: 1 } }),
		);
		const steps = ["first answer", "ok", { stopReason: "error", errorMessage: "terminated" }, "SUMMARY"];
		const server = rpc(["--faux-script", script(steps), "--no-session"]);
		for (const [id, message] of [
			["1", "question one"],
			["2", `question two ${"x".repeat(400)}`],
		] as const) {
			const settled = server.next((line) => line.type === "agent_settled");
			await server.request({ id, type: "prompt", message });
			await settled;
		}
		const from = server.lines.length;
		expect(await server.request({ id: "3", type: "compact" })).toMatchObject({ success: true });
		const types = server.lines.slice(from).map((line) => line.type);
		expect(types.filter((type) => type !== "response")).toEqual([
			"compaction_start",
			"summarization_retry_scheduled",
			"summarization_retry_attempt_start",
			"summarization_retry_finished",
			"compaction_end",
		]);
		expect(server.lines.slice(from).filter((line) => String(line.type).startsWith("summarization_retry"))).toEqual([
			{ type: "summarization_retry_scheduled", attempt: 1, maxAttempts: 3, delayMs: 1, errorMessage: "terminated" },
			{ type: "summarization_retry_attempt_start", source: "compaction", reason: "manual" },
			{ type: "summarization_retry_finished" },
		]);
		expect(await server.end()).toBe(0);
	});

	it("regression: get_last_assistant_text answered null after an aborted empty answer (pi skips it, as session.getLastAssistantText does)", async () => {
		const server = rpc(["--faux-script", script(["  the real answer  ", { stopReason: "aborted" }]), "--no-session"]);
		for (const id of ["1", "2"]) {
			const settled = server.next((line) => line.type === "agent_settled");
			await server.request({ id, type: "prompt", message: `question ${id}` });
			await settled;
		}
		expect(await server.request({ id: "3", type: "get_last_assistant_text" })).toMatchObject({
			data: { text: "the real answer" },
		});
		expect(await server.end()).toBe(0);
	});

	it("regression: get_fork_messages listed an image-only user message with empty text (pi leaves it out: nothing to show or fork from)", async () => {
		const server = rpc(["--faux"]);
		const image = {
			type: "image",
			data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
			mimeType: "image/png",
		};
		for (const [id, message, images] of [
			["1", "", [image]],
			["2", "what changed?", undefined],
		] as const) {
			const settled = server.next((line) => line.type === "agent_settled");
			await server.request({ id, type: "prompt", message, ...(images ? { images } : {}) });
			await settled;
		}
		const forkable = (await server.request({ id: "3", type: "get_fork_messages" })).data as {
			messages: { text: string }[];
		};
		expect(forkable.messages.map((m) => m.text)).toEqual(["what changed?"]);
		expect(await server.end()).toBe(0);
	});

	it("regression: get_commands listed only extension commands (pi also lists prompt templates and skills:<name>)", async () => {
		mkdirSync(join(cli.agentDir, "prompts"), { recursive: true });
		writeFileSync(join(cli.agentDir, "prompts", "review.md"), "---\ndescription: Review a file\n---\nReview $1\n");
		mkdirSync(join(cli.agentDir, "skills", "deploy"), { recursive: true });
		writeFileSync(
			join(cli.agentDir, "skills", "deploy", "SKILL.md"),
			"---\nname: deploy\ndescription: Deploy the app\n---\nRun the deploy script.\n",
		);
		const server = rpc(["--faux", "--no-session"]);
		const commands = (await server.request({ id: "1", type: "get_commands" })).data as {
			commands: { name: string; source: string; description?: string }[];
		};
		expect(commands.commands.map(({ name, source, description }) => ({ name, source, description }))).toEqual([
			{ name: "review", source: "prompt", description: "Review a file" },
			{ name: "skill:deploy", source: "skill", description: "Deploy the app" },
		]);
		expect(await server.end()).toBe(0);
	});
});

describe("settle --rpc: set_thinking_level says the level that applies (pi#9768)", () => {
	it("regression: on a model that does not reason it answered success with no data while the level stayed off", async () => {
		// A models.json provider (never called: no prompt is sent) with one model of each kind.
		writeLocalProvider(cli.agentDir, "http://127.0.0.1:9/v1", {
			models: [{ id: "plain" }, { id: "thinker", reasoning: true }],
		});
		const server = rpc(["--no-session", "--model", "local/plain"]);
		expect(await server.request({ id: "1", type: "set_thinking_level", level: "high" })).toEqual({
			id: "1",
			type: "response",
			command: "set_thinking_level",
			success: true,
			data: { level: "off" },
		});
		expect((await server.request({ id: "2", type: "get_state" })).data).toMatchObject({ thinkingLevel: "off" });

		await server.request({ id: "3", type: "set_model", provider: "local", modelId: "thinker" });
		expect(await server.request({ id: "4", type: "set_thinking_level", level: "high" })).toMatchObject({
			success: true,
			data: { level: "high" },
		});
		// xhigh needs a model that declares it: clamped to high, and the answer says so.
		expect(await server.request({ id: "5", type: "set_thinking_level", level: "xhigh" })).toMatchObject({
			success: true,
			data: { level: "high" },
		});
		expect((await server.request({ id: "6", type: "get_state" })).data).toMatchObject({ thinkingLevel: "high" });
		expect(await server.end()).toBe(0);
		expect(server.stderr).toBe("");
	});
});

describe("settle --rpc: set_thinking_level with a level name pi does not know (HIGH, loud)", () => {
	it("is refused with pi's --thinking wording and the level stays (pi 0.73.1's server clamps it to off)", async () => {
		writeLocalProvider(cli.agentDir, "http://127.0.0.1:9/v1", { models: [{ id: "thinker", reasoning: true }] });
		const server = rpc(["--no-session", "--model", "local/thinker", "--thinking", "medium"]);
		for (const level of ["HIGH", "loud"]) {
			expect(await server.request({ id: level, type: "set_thinking_level", level })).toEqual({
				id: level,
				type: "response",
				command: "set_thinking_level",
				success: false,
				error: `Invalid thinking level "${level}". Valid values: off, minimal, low, medium, high, xhigh`,
			});
		}
		expect((await server.request({ id: "state", type: "get_state" })).data).toMatchObject({ thinkingLevel: "medium" });
		expect(await server.end()).toBe(0);
		expect(server.stderr).toBe("");
	});
});

describe("settle --rpc: commands run side by side", () => {
	it("oh-my-pi#4027: commands waited for each other, so get_state and abort_bash only answered once a running bash command had finished", async () => {
		const server = rpc(["--faux", "--no-session"]);
		const started = server.next((line) => line.type === "bash_execution_update");
		const bash = server.next((line) => line.type === "response" && line.id === "bash");
		server.send({ id: "bash", type: "bash", command: "echo started; sleep 60; echo never" });
		await started;
		// Answered while the command runs (it would otherwise take a minute: past the test timeout).
		expect(await server.request({ id: "state", type: "get_state" })).toMatchObject({ success: true });
		expect(await server.request({ id: "stop", type: "abort_bash" })).toMatchObject({ success: true });
		expect(await bash).toMatchObject({ success: true, data: { output: "started\n", cancelled: true } });
		const responses = server.lines.filter((line) => line.type === "response");
		expect(responses.map((line) => line.id)).toEqual(["state", "stop", "bash"]);
		expect(await server.end()).toBe(0);
	});
});

describe("settle --rpc: session replacement holds the commands after it", () => {
	it("a prompt sent right after new_session, without waiting, reaches the new session (pi sends it to the old one, then disposes that)", async () => {
		const server = rpc(["--faux"]);
		const settled = server.next((line) => line.type === "agent_settled");
		await server.request({ id: "1", type: "prompt", message: "in the first session" });
		await settled;
		const replaced = server.next((line) => line.id === "2");
		const answered = server.next((line) => line.type === "agent_settled");
		server.send({ id: "2", type: "new_session" });
		server.send({ id: "3", type: "prompt", message: "in the second session" });
		expect(await replaced).toMatchObject({ success: true, data: { cancelled: false } });
		await answered;
		const messages = (await server.request({ id: "4", type: "get_messages" })).data as {
			messages: { role: string; content: unknown }[];
		};
		const users = messages.messages.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
		expect(users).toEqual([JSON.stringify([{ type: "text", text: "in the second session" }])]);
		expect(await server.end()).toBe(0);
	});
});

describe("settle --rpc: switch_session to a path with no file", () => {
	it("starts a new session there as pi does, and says so with created: true (a switch to an existing file has no such field)", async () => {
		const server = rpc(["--faux"]);
		const settled = server.next((line) => line.type === "agent_settled");
		await server.request({ id: "1", type: "prompt", message: "in the first session" });
		await settled;
		const first = ((await server.request({ id: "2", type: "get_state" })).data as { sessionFile: string }).sessionFile;
		const missing = join(cli.dir, "typo-sesion.jsonl");
		const created = await server.request({ id: "3", type: "switch_session", sessionPath: missing });
		expect(created).toEqual({
			id: "3",
			type: "response",
			command: "switch_session",
			success: true,
			data: { cancelled: false, created: true },
		});
		const resumed = await server.request({ id: "4", type: "switch_session", sessionPath: first });
		expect(resumed).toMatchObject({ success: true, data: { cancelled: false } });
		expect(resumed.data).not.toHaveProperty("created");
		expect(await server.end()).toBe(0);
	});

	it("regression: the current session's unwritten path, written by its own session_shutdown during the switch, was answered created: true; the host lands in that session, so no created", async () => {
		const extension = join(cli.dir, "save-on-switch.ts");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.on("session_shutdown", async (event) => {
		if (event.reason !== "resume") return;
		const answered = new Promise((resolve) => pi.on("agent_end", () => resolve()));
		pi.sendUserMessage("note before the switch");
		await answered;
	});
}
`,
		);
		const server = rpc(["--faux-script", script(["noted"]), "-e", extension]);
		const own = ((await server.request({ id: "1", type: "get_state" })).data as { sessionFile: string }).sessionFile;
		const switched = await server.request({ id: "2", type: "switch_session", sessionPath: own });
		expect(switched).toMatchObject({ success: true, data: { cancelled: false } });
		expect(switched.data).not.toHaveProperty("created");
		const messages = (await server.request({ id: "3", type: "get_messages" })).data as {
			messages: { role: string }[];
		};
		const conversation = messages.messages.filter((message) => message.role !== "system");
		expect(conversation.map((message) => message.role)).toEqual(["user", "assistant"]);
		expect(await server.end()).toBe(0);
	});

	it("the current session's unwritten path, nothing written during the switch: a new session starts there, created: true", async () => {
		const server = rpc(["--faux"]);
		const before = (await server.request({ id: "1", type: "get_state" })).data as {
			sessionFile: string;
			sessionId: string;
		};
		const switched = await server.request({ id: "2", type: "switch_session", sessionPath: before.sessionFile });
		expect(switched).toMatchObject({ success: true, data: { cancelled: false, created: true } });
		const after = (await server.request({ id: "3", type: "get_state" })).data as {
			sessionFile: string;
			sessionId: string;
		};
		expect(after.sessionFile).toBe(before.sessionFile);
		expect(after.sessionId).not.toBe(before.sessionId);
		expect(await server.end()).toBe(0);
	});

	it("RpcClient.switchSession resolves { cancelled: false, created: true } for a missing file, { cancelled: false } for one on disk", async () => {
		const client = new SdkRpcClient({
			command: [process.execPath, ...cliCommand(), "--rpc"],
			cwd: cli.project,
			env: { SETTLE_AGENT_DIR: cli.agentDir },
			args: ["--faux"],
		});
		await client.start();
		try {
			await client.promptAndWait("in the first session");
			const first = (await client.getState()).sessionFile!;
			expect(await client.switchSession(join(cli.dir, "new-here.jsonl"))).toEqual({ cancelled: false, created: true });
			expect(await client.switchSession(first)).toEqual({ cancelled: false });
		} finally {
			await client.stop();
		}
	});
});

describe("settle --rpc: extension UI", () => {
	it("regression: extension dialogs never reached the host (confirm was always false) and extension_ui_response was 'Unknown command'", async () => {
		const extension = join(cli.dir, "ask.ts");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.registerCommand("ask", {
		description: "Asks the host",
		handler: async (_args, ctx) => {
			const ok = await ctx.ui.confirm("Deploy?", "to staging");
			const where = await ctx.ui.select("Where?", ["eu", "us"]);
			const name = await ctx.ui.input("Name?", "release name");
			ctx.ui.notify(\`hasUI=\${ctx.hasUI} ok=\${ok} where=\${where} name=\${name}\`, "info");
		},
	});
}
`,
		);
		const server = rpc(["--faux", "--no-session", "-e", extension]);
		const confirm = server.next((line) => line.type === "extension_ui_request" && line.method === "confirm");
		const handled = server.next((line) => line.type === "response" && line.id === "1");
		server.send({ id: "1", type: "prompt", message: "/ask" });
		const confirmRequest = await confirm;
		expect(confirmRequest).toMatchObject({ title: "Deploy?", message: "to staging" });

		const select = server.next((line) => line.type === "extension_ui_request" && line.method === "select");
		server.send({ type: "extension_ui_response", id: confirmRequest.id, confirmed: true });
		const selectRequest = await select;
		expect(selectRequest).toMatchObject({ title: "Where?", options: ["eu", "us"] });

		const input = server.next((line) => line.type === "extension_ui_request" && line.method === "input");
		server.send({ type: "extension_ui_response", id: selectRequest.id, value: "us" });
		const inputRequest = await input;

		const notify = server.next((line) => line.type === "extension_ui_request" && line.method === "notify");
		server.send({ type: "extension_ui_response", id: inputRequest.id, cancelled: true });
		expect(await notify).toMatchObject({
			message: "hasUI=true ok=true where=us name=undefined",
			notifyType: "info",
		});
		expect(await handled).toMatchObject({ command: "prompt", success: true });
		// A dialog answer is consumed: it gets no response line of its own.
		expect(server.lines.filter((line) => line.type === "response").map((line) => line.command)).toEqual(["prompt"]);
		expect(await server.end()).toBe(0);
		expect(server.stderr).toBe("");
	});

	it("a dialog still open when stdin ends is dismissed with its default, and the server exits", async () => {
		const extension = join(cli.dir, "wait.ts");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.registerCommand("wait", { handler: async (_args, ctx) => { await ctx.ui.confirm("Sure?", "nobody answers"); } });
}
`,
		);
		const server = rpc(["--faux", "--no-session", "-e", extension]);
		const asked = server.next((line) => line.type === "extension_ui_request" && line.method === "confirm");
		server.send({ id: "1", type: "prompt", message: "/wait" });
		await asked;
		expect(await server.end()).toBe(0);
	});

	it('regression: a fork an extension cancelled answered text "" (pi leaves text out)', async () => {
		const extension = join(cli.dir, "no-fork.ts");
		writeFileSync(
			extension,
			`export default function (pi) { pi.on("session_before_fork", () => ({ cancel: true })); }\n`,
		);
		const server = rpc(["--faux", "-e", extension]);
		const settled = server.next((line) => line.type === "agent_settled");
		await server.request({ id: "1", type: "prompt", message: "hello" });
		await settled;
		const forkable = (await server.request({ id: "2", type: "get_fork_messages" })).data as {
			messages: { entryId: string }[];
		};
		expect(await server.request({ id: "3", type: "fork", entryId: forkable.messages[0]!.entryId })).toEqual({
			id: "3",
			type: "response",
			command: "fork",
			success: true,
			data: { cancelled: true },
		});
		expect(await server.end()).toBe(0);
	});
});
