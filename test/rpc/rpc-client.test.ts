/**
 * `settle/rpc`'s RpcClient driving `settle --rpc` as an editor plugin would: a real child process
 * (the bundle of the current sources, test/cli/cli-bundle.ts) on the scripted faux model.
 */
import { existsSync, mkdirSync, rmSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RpcClient, type RpcClientOptions, type RpcEvent } from "../../src/rpc/index.js";
import { cliCommand, useCliProject } from "../cli/helpers.js";
import { rejection } from "../rejection.js";
import { decodedSize, encodeImage } from "../tools/image-resize-helpers.js";

const cli = useCliProject("settle-rpc-client-");

/**
 * The bash command of a held tool call: runs until the test creates `gate` in the cwd, then leaves
 * `passed`. It gives up after ~30 s, so a failed test cannot leave it running for good.
 */
const GATE =
	"echo waiting; i=0; while [ ! -e gate ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; touch passed; echo opened";

/** Every client a test made; stopped after each test, so a failed test leaves no server running. */
const clients: RpcClient[] = [];
afterEach(async () => {
	await Promise.all(clients.splice(0).map((rpc) => rpc.stop()));
});

function client(args: string[], options: RpcClientOptions = {}): RpcClient {
	const rpc = new RpcClient({
		command: [process.execPath, ...cliCommand(), "--rpc"],
		cwd: cli.project,
		env: { SETTLE_AGENT_DIR: cli.agentDir },
		args,
		...options,
	});
	clients.push(rpc);
	return rpc;
}

function script(steps: unknown[]): string {
	const file = join(cli.dir, "script.json");
	writeFileSync(file, JSON.stringify(steps));
	return file;
}

/** Resolves once `dir/name` exists (fs.watch: no polling). */
function fileAppears(dir: string, name: string): Promise<void> {
	return new Promise((resolve) => {
		const check = () => {
			if (!existsSync(join(dir, name))) return;
			watcher.close();
			resolve();
		};
		const watcher = watch(dir, check);
		check();
	});
}

/** Resolves with the first event (from now on) that matches. */
function nextEvent(rpc: RpcClient, match: (event: RpcEvent) => boolean): Promise<RpcEvent> {
	return new Promise((resolve) => {
		const off = rpc.onEvent((event) => {
			if (!match(event)) return;
			off();
			resolve(event);
		});
	});
}

function texts(messages: readonly { role: string; content?: unknown }[]): string[] {
	// Settle's transcript starts with the system prompt as a message of its own.
	return messages
		.filter((message) => message.role !== "system")
		.map((message) => {
			const content = message.content;
			if (typeof content === "string") return `${message.role}: ${content}`;
			const parts = (content as { type: string; text?: string; name?: string }[]).map((part) =>
				part.type === "text" ? part.text : part.type === "toolCall" ? `[${part.name}]` : `[${part.type}]`,
			);
			return `${message.role}: ${parts.join(" ")}`;
		});
}

describe("RpcClient drives settle --rpc", () => {
	it("prompt → events → answer: promptAndWait ends at agent_settled, the iterator sees the same events", async () => {
		const rpc = client(["--faux", "--no-session"]);
		await rpc.start();
		expect(rpc.idleEvent).toBe("agent_settled");
		const iterated: string[] = [];
		const iterating = (async () => {
			for await (const event of rpc.events()) {
				iterated.push(event.type);
				if (event.type === "agent_settled") break;
			}
		})();
		const events = await rpc.promptAndWait("hello there");
		await iterating;
		const types = events.map((event) => event.type);
		expect(types[0]).toBe("agent_start");
		expect(types.at(-1)).toBe("agent_settled");
		expect(types).toContain("agent_end");
		expect(iterated).toEqual(types);
		expect(await rpc.getLastAssistantText()).toBe("hello there");
		const state = await rpc.getState();
		expect(state).toMatchObject({ isStreaming: false, lifecycle: "idle" });
		await rpc.stop();
		expect(rpc.exit).toEqual({ code: 143, signal: null });
	});

	it("steer and followUp during a held tool call reach the run in order; abort ends a held run", async () => {
		const steps = [{ toolCalls: [{ name: "bash", arguments: { command: GATE } }] }, "steered", "followed"];
		const rpc = client(["--faux-script", script(steps), "--no-session"]);
		await rpc.start();
		const held = nextEvent(rpc, (event) => event.type === "tool_execution_update");
		const idle = rpc.waitForIdle();
		await rpc.prompt("go");
		await held;
		await rpc.steer("change course");
		await rpc.followUp("then this");
		expect(await rpc.getState()).toMatchObject({ isStreaming: true, pendingMessageCount: 2 });
		writeFileSync(join(cli.project, "gate"), "");
		await idle;
		expect(texts(await rpc.getMessages())).toEqual([
			"user: go",
			"assistant: [bash]",
			"toolResult: waiting\nopened\n",
			"user: change course",
			"assistant: steered",
			"user: then this",
			"assistant: followed",
		]);

		// A second held run, aborted: the gate never opens, the run ends, the session stays usable.
		for (const file of ["gate", "passed"]) rmSync(join(cli.project, file));
		const again = client(["--faux-script", script(steps), "--no-session"]);
		await again.start();
		const running = nextEvent(again, (event) => event.type === "tool_execution_update");
		const ended = again.collectEvents();
		await again.prompt("go");
		await running;
		await again.abort();
		const events = await ended;
		expect(events.map((event) => event.type)).toContain("agent_end");
		expect(existsSync(join(cli.project, "passed"))).toBe(false);
		const last = (await again.getMessages()).at(-1) as { role: string; stopReason?: string };
		expect(last.role).toBe("assistant");
		expect(last.stopReason).toBe("aborted");
		expect(await again.getState()).toMatchObject({ isStreaming: false });
		await Promise.all([rpc.stop(), again.stop()]);
	});

	it("images of steer, follow_up and a queued prompt get the prompt's checks: a PNG labelled image/jpeg is relabelled, a 300×2400 one resized", async () => {
		const steps = [{ toolCalls: [{ name: "bash", arguments: { command: GATE } }] }, "steered", "queued", "followed"];
		const rpc = client(["--faux-script", script(steps), "--no-session"]);
		await rpc.start();
		const png = encodeImage("png", 64, 48).toString("base64");
		const tall = encodeImage("png", 300, 2400).toString("base64");
		const held = nextEvent(rpc, (event) => event.type === "tool_execution_update");
		const idle = rpc.waitForIdle();
		await rpc.prompt("go");
		await held;
		await rpc.steer("what is this?", [{ type: "image", data: png, mimeType: "image/jpeg" }]);
		await rpc.prompt("and this?", [{ type: "image", data: tall, mimeType: "image/png" }], "steer");
		await rpc.followUp("last one", [{ type: "image", data: png, mimeType: "image/jpeg" }]);
		writeFileSync(join(cli.project, "gate"), "");
		await idle;
		const users = (await rpc.getMessages()).flatMap((message) =>
			message.role === "user"
				? [message.content as { type: string; text?: string; data?: string; mimeType?: string }[]]
				: [],
		);
		expect(users.map((content) => content[0]?.text)).toEqual([
			"go",
			"what is this?",
			"and this?\n\n[Image: original 300x2400, displayed at 250x2000. Multiply coordinates by 1.20 to map to original image.]",
			"last one",
		]);
		expect(users[1]?.[1]).toEqual({ type: "image", data: png, mimeType: "image/png" });
		expect(users[2]?.[1]?.mimeType).toBe("image/png");
		expect(decodedSize(Buffer.from(users[2]?.[1]?.data ?? "", "base64"))).toEqual({ width: 250, height: 2000 });
		expect(users[3]?.[1]).toEqual({ type: "image", data: png, mimeType: "image/png" });
	});

	it("newSession replaces the session: a new file, no messages; a refused command rejects with COMMAND_FAILED", async () => {
		const rpc = client(["--faux"]);
		await rpc.start();
		await rpc.promptAndWait("first");
		const before = await rpc.getState();
		expect(await rpc.newSession()).toEqual({ cancelled: false });
		const after = await rpc.getState();
		expect(after.sessionFile).not.toBe(before.sessionFile);
		expect(after.sessionId).not.toBe(before.sessionId);
		expect(texts(await rpc.getMessages())).toEqual([]);
		const refused = await rejection(rpc.setModel("faux", "nope"));
		expect(refused).toMatchObject({
			code: "COMMAND_FAILED",
			message: expect.stringMatching(/^Model not found: faux\/nope\. faux serves: faux-1\./),
			details: { command: "set_model" },
		});
		// pi's RpcClient resolves a refused prompt (it never looks at success); this one rejects.
		const empty = await rejection(rpc.setSessionName("  "));
		expect(empty.message).toBe("Session name cannot be empty");
		await rpc.stop();
	});

	it("extension dialogs: the handler's answers reach the extension; without a handler each is cancelled", async () => {
		const extension = join(cli.dir, "ask.ts");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.registerCommand("ask", {
		handler: async (_args, ctx) => {
			const ok = await ctx.ui.confirm("Deploy?", "to staging");
			const where = await ctx.ui.select("Where?", ["eu", "us"]);
			const name = await ctx.ui.input("Name?", "release name");
			ctx.ui.notify(\`ok=\${ok} where=\${where} name=\${name}\`, "info");
		},
	});
}
`,
		);
		const asked: string[] = [];
		const answering = client(["--faux", "--no-session", "-e", extension], {
			onExtensionUIRequest: async (request) => {
				asked.push(`${request.method} ${request.title}`);
				if (request.method === "confirm") return { confirmed: true };
				if (request.method === "select") return { value: request.options[1]! };
				return undefined; // input: cancelled
			},
		});
		const silent = client(["--faux", "--no-session", "-e", extension]);
		await Promise.all([answering.start(), silent.start()]);
		const notices = [answering, silent].map((rpc) =>
			nextEvent(rpc, (event) => event.type === "extension_ui_request" && event.method === "notify"),
		);
		await Promise.all([answering.prompt("/ask"), silent.prompt("/ask")]);
		const [answered, cancelled] = await Promise.all(notices);
		expect(answered).toMatchObject({ message: "ok=true where=us name=undefined" });
		expect(cancelled).toMatchObject({ message: "ok=false where=undefined name=undefined" });
		expect(asked).toEqual(["confirm Deploy?", "select Where?", "input Name?"]);
		await Promise.all([answering.stop(), silent.stop()]);
	});
});

describe("RpcClient: a prompt that starts no run", () => {
	/** An extension: `/stats` only notifies, `/review` sends a message (a run follows), `!x` input is handled by the hook. */
	function extensionFile(): string {
		const file = join(cli.dir, "commands.ts");
		writeFileSync(
			file,
			`export default function (pi) {
	pi.registerCommand("stats", { handler: async (_args, ctx) => ctx.ui.notify("stats shown", "info") });
	pi.registerCommand("review", { handler: async () => { pi.sendUserMessage("review the diff"); } });
	pi.on("input", (event, ctx) => {
		if (!event.text.startsWith("!")) return undefined;
		ctx.ui.notify("hook took " + event.text, "info");
		return { action: "handled" };
	});
}
`,
		);
		return file;
	}
	/** Short enough that the old wait-for-a-timeout fails the test, long enough for a loaded machine. */
	const WAIT = 15_000;

	it("an extension command or an input hook: promptAndWait and waitForIdle resolve at the handled response", async () => {
		const rpc = client(["--faux", "--no-session", "-e", extensionFile()]);
		await rpc.start();
		const events = await rpc.promptAndWait("/stats", undefined, WAIT);
		expect(events.map((event) => event.type)).toEqual(["extension_ui_request"]);
		expect(events[0]).toMatchObject({ method: "notify", message: "stats shown" });
		const idle = rpc.waitForIdle(WAIT);
		const result = await rpc.prompt("/stats");
		await idle;
		expect(result).toEqual({ disposition: "handled" });
		const hooked = await rpc.promptAndWait("!deploy", undefined, WAIT);
		expect(hooked).toMatchObject([{ method: "notify", message: "hook took !deploy" }]);
		expect(texts(await rpc.getMessages())).toEqual([]);

		// A command that sends a message: the run follows, and promptAndWait waits for it.
		const reviewed = await rpc.promptAndWait("/review", undefined, WAIT);
		expect(reviewed.at(-1)?.type).toBe("agent_settled");
		expect(texts(await rpc.getMessages())).toEqual(["user: review the diff", "assistant: review the diff"]);
		// An ordinary prompt still reports that it started.
		const started = rpc.waitForIdle(WAIT);
		expect(await rpc.prompt("hello")).toEqual({ disposition: "started" });
		await started;
	});

	it("an abort during the prompt's own input hook: the prompt answers 'aborted' (it said 'started'), nothing is saved, waitForIdle ends at the idle event", async () => {
		// The hook ends once the server has read the abort command (its handling is all microtasks).
		const hook = join(cli.dir, "slow-input.ts");
		writeFileSync(
			hook,
			`export default function (pi) {
	pi.on("input", async () => {
		console.error("in the input hook");
		await new Promise((read) => process.stdin.on("data", (chunk) => String(chunk).includes('"abort"') && setImmediate(read)));
		return undefined;
	});
}
`,
		);
		let stderr = "";
		let entered!: () => void;
		const inHook = new Promise<void>((resolve) => {
			entered = resolve;
		});
		const onStderr = (text: string) => {
			stderr += text;
			if (stderr.includes("in the input hook")) entered();
		};
		const rpc = client(["--faux", "--no-session", "-e", hook], { onStderr });
		await rpc.start();
		const idle = rpc.waitForIdle(WAIT);
		const prompted = rpc.prompt("fix the build");
		await inHook;
		await rpc.abort();
		expect(await prompted).toEqual({ disposition: "aborted" });
		await idle;
		expect(texts(await rpc.getMessages())).toEqual([]);
	});

	it("during a manual compact, an extension command resolves promptAndWait and waitForIdle at its handled response", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		// The compaction is held in session_before_compact until the test creates `gate` in the cwd.
		const holder = join(cli.dir, "hold-compaction.ts");
		writeFileSync(
			holder,
			`import { existsSync, watch } from "node:fs";
export default function (pi) {
	pi.on("session_before_compact", async (_event, ctx) => {
		ctx.ui.notify("compaction held", "info");
		await new Promise((resolve) => {
			const check = () => {
				if (!existsSync("gate")) return;
				watcher.close();
				resolve(undefined);
			};
			const watcher = watch(".", check);
			check();
		});
	});
}
`,
		);
		const rpc = client(["--faux", "--no-session", "-e", extensionFile(), "-e", holder]);
		await rpc.start();
		await rpc.promptAndWait("one", undefined, WAIT);
		await rpc.promptAndWait("two", undefined, WAIT);
		const held = nextEvent(
			rpc,
			(event) =>
				event.type === "extension_ui_request" && event.method === "notify" && event.message === "compaction held",
		);
		const compacted = rpc.compact();
		await held;
		expect(await rpc.getState()).toMatchObject({ isCompacting: true, isStreaming: false });

		const idle = rpc.waitForIdle(WAIT);
		const events = await rpc.promptAndWait("/stats", undefined, WAIT);
		await idle;
		expect(events).toMatchObject([{ type: "extension_ui_request", method: "notify", message: "stats shown" }]);
		// Both waiters ended while the compaction is still held.
		expect(await rpc.getState()).toMatchObject({ isCompacting: true });

		writeFileSync(join(cli.project, "gate"), "");
		expect(await compacted).toMatchObject({ summary: expect.any(String) });
		expect(await rpc.getState()).toMatchObject({ isCompacting: false, lifecycle: "idle" });
	});

	it("regression: a prompt the server refused (no API key) left waitForIdle waiting until its timeout; now the wait ends with the refusal", async () => {
		const noKeys = { SETTLE_AGENT_DIR: cli.agentDir, ANTHROPIC_API_KEY: undefined, ANTHROPIC_OAUTH_TOKEN: undefined };
		const rpc = client(["--model", "anthropic/claude-sonnet-4-5", "--no-session"], { env: noKeys });
		await rpc.start();
		const idle = rpc.collectEvents(WAIT);
		const refused = await rejection(rpc.prompt("hello"));
		expect(refused).toMatchObject({
			code: "COMMAND_FAILED",
			message: expect.stringContaining("No API key found for anthropic"),
		});
		// No run started, so no agent_settled comes: the wait ends at the refusal, with no events.
		expect(await idle).toEqual([]);
		const waited = rpc.waitForIdle(WAIT);
		await rejection(rpc.promptAndWait("again", undefined, WAIT));
		await waited;
		expect(await rpc.getState()).toMatchObject({ isStreaming: false, lifecycle: "idle" });
	});

	it("during a run, a handled or queued prompt keeps waitForIdle waiting for the run that goes on", async () => {
		const steps = [{ toolCalls: [{ name: "bash", arguments: { command: GATE } }] }, "done", "followed"];
		const rpc = client(["--faux-script", script(steps), "--no-session", "-e", extensionFile()]);
		await rpc.start();
		const held = nextEvent(rpc, (event) => event.type === "tool_execution_update");
		const idle = rpc.collectEvents(WAIT);
		let settled = false;
		void idle.then(() => (settled = true));
		expect(await rpc.prompt("go")).toEqual({ disposition: "started" });
		await held;
		expect(await rpc.prompt("/stats")).toEqual({ disposition: "handled" });
		expect(await rpc.prompt("then this", undefined, "followUp")).toEqual({ disposition: "queued" });
		// A round trip after both responses: the waiter is still waiting for the run.
		expect(await rpc.getState()).toMatchObject({ isStreaming: true, pendingMessageCount: 1 });
		expect(settled).toBe(false);
		writeFileSync(join(cli.project, "gate"), "");
		const events = await idle;
		expect(events.at(-1)?.type).toBe("agent_settled");
		expect(texts(await rpc.getMessages()).slice(-2)).toEqual(["user: then this", "assistant: followed"]);
	});
});

describe("RpcClient: a run longer than the wait's timeout", () => {
	// A bash call that prints a line every 0.3 s for about 3 s: events flow the whole time.
	const TICKING = "for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i; sleep 0.3; done";

	it("waitForIdle and promptAndWait wait while events flow: the timeout is the longest silence, not the run's length (pi's client rejects at the timeout however busy the run)", async () => {
		const steps = [
			{ toolCalls: [{ name: "bash", arguments: { command: TICKING } }] },
			"ticked",
			{ toolCalls: [{ name: "bash", arguments: { command: TICKING } }] },
			"ticked again",
		];
		const rpc = client(["--faux-script", script(steps), "--no-session"]);
		await rpc.start();
		const idle = rpc.waitForIdle(1500);
		await rpc.prompt("tick");
		await idle;
		expect(await rpc.getLastAssistantText()).toBe("ticked");
		const events = await rpc.promptAndWait("tick again", undefined, 1500);
		expect(events.filter((event) => event.type === "tool_execution_update").length).toBeGreaterThan(5);
		expect(events.at(-1)?.type).toBe("agent_settled");
		expect(await rpc.getLastAssistantText()).toBe("ticked again");
	});

	it("a run that goes silent longer than the timeout still rejects with OPERATION_STALLED", async () => {
		const steps = [{ toolCalls: [{ name: "bash", arguments: { command: GATE } }] }, "opened"];
		const rpc = client(["--faux-script", script(steps), "--no-session"]);
		await rpc.start();
		const idle = rpc.waitForIdle(500);
		idle.catch(() => {});
		await rpc.prompt("wait");
		const error = await rejection(idle);
		expect(error).toMatchObject({ code: "OPERATION_STALLED", details: { timeoutMs: 500 } });
		expect(error.message).toContain("No agent_settled, and no event for 500 ms");
		writeFileSync(join(cli.project, "gate"), "");
		await rpc.waitForIdle();
	});
});

describe("RpcClient never hangs on a dead server", () => {
	it("pi#4764: a server killed with SIGKILL mid-request rejects every pending call at once with SESSION_CLOSED (pi's RpcClient waited 30 s)", async () => {
		const rpc = client(["--faux", "--no-session"]);
		await rpc.start();
		const output = nextEvent(rpc, (event) => event.type === "bash_execution_update");
		const bash = rpc.bash(GATE);
		const idle = rpc.waitForIdle(600_000);
		const iterator = rpc.events();
		await output;
		process.kill(rpc.pid!, "SIGKILL");
		const error = await rejection(bash);
		expect(error.code).toBe("SESSION_CLOSED");
		expect(error.message).toContain('while "bash" was pending');
		expect(error.message).toContain("killed by SIGKILL");
		expect(error.details).toMatchObject({ signal: "SIGKILL", exitCode: null, command: "bash" });
		expect((await rejection(idle)).code).toBe("SESSION_CLOSED");
		// Buffered events first, then the iterator throws the same error.
		const seen: string[] = [];
		const iterated = await rejection(
			(async () => {
				for await (const event of iterator) seen.push(event.type);
			})(),
		);
		expect(seen).toContain("bash_execution_update");
		expect(iterated.code).toBe("SESSION_CLOSED");
		// Later calls reject at once; stop() is a no-op that resolves.
		expect((await rejection(rpc.getState())).code).toBe("SESSION_CLOSED");
		expect(rpc.pid).toBeUndefined();
		await rpc.stop();
		await rpc.stop();
		expect(rpc.exit).toEqual({ code: null, signal: "SIGKILL" });
		// SIGKILL left the held shell command running (settle had no chance to stop it): let it end.
		const passed = fileAppears(cli.project, "passed");
		writeFileSync(join(cli.project, "gate"), "");
		await passed;
	});

	it("a server that exits at start (a bad option) fails start() with its exit code and stderr", async () => {
		const rpc = client(["--no-such-option"]);
		const error = await rejection(rpc.start());
		expect(error.code).toBe("SESSION_CLOSED");
		expect(error.details).toMatchObject({ exitCode: 2, command: "get_state" });
		expect(error.message).toContain("exited with code 2");
		expect(error.message).toContain("--no-such-option");
		expect(rpc.getStderr()).toContain("--no-such-option");
	});

	it("stop() is idempotent, waits for the exit, rejects what is pending and ends the iterators; start() works again", async () => {
		const rpc = client(["--faux", "--no-session"]);
		await rpc.start();
		const output = nextEvent(rpc, (event) => event.type === "bash_execution_update");
		const bash = rpc.bash(GATE);
		const iterator = rpc.events();
		await output;
		const stops = [rpc.stop(), rpc.stop()];
		const error = await rejection(bash);
		expect(error).toMatchObject({ code: "SESSION_CLOSED", details: { command: "bash" } });
		expect(error.message).toContain("the client was stopped");
		await Promise.all(stops);
		expect(rpc.exit).toEqual({ code: 143, signal: null });
		const seen: string[] = [];
		for await (const event of iterator) seen.push(event.type);
		expect(seen).toContain("bash_execution_update");
		// Settle's SIGTERM handling killed the held shell command: the gate loop is gone.
		await rpc.start();
		expect(await rpc.getState()).toMatchObject({ isStreaming: false });
		const stopping = rpc.stop();
		expect((await rejection(rpc.getState())).message).toContain("the client was stopped");
		await stopping;
		// After stop() the event stream is over (not an error).
		expect(await rpc.events().next()).toEqual({ value: undefined, done: true });
	});
});
