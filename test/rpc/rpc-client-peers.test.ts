/**
 * RpcClient against other servers: a misbehaving one (test/rpc/fake-rpc-server.mjs: malformed
 * lines, unknown ids, a command never answered, a crash), and pi 0.73.1 both ways — pi's own
 * `RpcClient` drives `settle --rpc` (a pi user's code keeps working), and Settle's client drives
 * pi's RPC mode (test/cli/pi-rpc-peer.mjs, pi-ai's faux provider).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RpcClient as PiRpcClient } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { RpcClient, type RpcEvent } from "../../src/rpc/index.js";
import { cliBundle } from "../cli/cli-bundle.js";
import { ROOT, useCliProject } from "../cli/helpers.js";
import { rejection } from "../rejection.js";

const cli = useCliProject("settle-rpc-peers-");
const FAKE = join(ROOT, "test", "rpc", "fake-rpc-server.mjs");

describe("pi#8965: a run that ends in the chunk that carries the prompt's answer", () => {
	const FAST = join(ROOT, "test", "rpc", "fast-run-server.mjs");
	// A missed idle event would reject with OPERATION_STALLED after this long; the answer takes ms.
	const WAIT_MS = 20_000;

	it("pi#8965: `await prompt(); await waitForIdle()` resolves at the idle event that came with the answer (pi's client times out)", async () => {
		for (const args of [[], ["--pi"]]) {
			const rpc = new RpcClient({ command: [process.execPath, FAST, ...args] });
			const seen: string[] = [];
			rpc.onEvent((event) => seen.push(event.type));
			await rpc.start();
			for (let round = 0; round < 3; round++) {
				await rpc.prompt(`question ${round}`);
				await rpc.waitForIdle(WAIT_MS);
			}
			// The waiter registered before the prompt still works, and events keep their order.
			const idle = rpc.waitForIdle(WAIT_MS);
			await rpc.prompt("one more");
			await idle;
			const collected = rpc.collectEvents(WAIT_MS);
			await rpc.prompt("and collect");
			expect((await collected).map((event) => event.type)).toEqual(
				args.length ? ["agent_start", "agent_end"] : ["agent_start", "agent_end", "agent_settled"],
			);
			const run = args.length ? ["agent_start", "agent_end"] : ["agent_start", "agent_end", "agent_settled"];
			expect(seen).toEqual(Array.from({ length: 5 }, () => run).flat());
			await rpc.stop();
		}
	});

	it("pi#8965: pi 0.73.1's own client misses that idle event: `await prompt(); await waitForIdle()` times out", async () => {
		const pi = new PiRpcClient({ cliPath: FAST, args: ["--pi"] });
		await pi.start();
		await pi.prompt("question");
		await expect(pi.waitForIdle(1000)).rejects.toThrow("Timeout waiting for agent to become idle");
		await pi.stop();
	});

	it("pi#8965: a server that exits right after such a chunk: the waiter gets the idle event, not SESSION_CLOSED", async () => {
		const rpc = new RpcClient({ command: [process.execPath, FAST] });
		await rpc.start();
		const answered = rpc.prompt("exit");
		// Hold this thread until the server has written its chunk and exited (a zombie not yet reaped),
		// so the chunk and the end of its stdout are read together, as on a loaded machine.
		const pid = rpc.pid!;
		const pause = new Int32Array(new SharedArrayBuffer(4));
		const deadline = Date.now() + WAIT_MS;
		while (!/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8")) && Date.now() < deadline) {
			Atomics.wait(pause, 0, 0, 5);
		}
		await answered;
		await rpc.waitForIdle(WAIT_MS);
		await rpc.stop();
	});
});

describe("RpcClient against a misbehaving server", () => {
	it("skips lines that are not protocol objects, passes a response to an unknown id on as an event, frames on LF only", async () => {
		const rpc = new RpcClient({ command: [process.execPath, FAKE] });
		const events: RpcEvent[] = [];
		rpc.onEvent((event) => events.push(event));
		await rpc.start();
		expect(events).toEqual([
			{ type: "response", id: "stranger", command: "get_state", success: true },
			{ type: "custom_note", text: "a\u2028b" },
		]);
		// No `lifecycle` in get_state: not Settle, so a run ends at pi's agent_end.
		expect(rpc.idleEvent).toBe("agent_end");
		expect(await rpc.getState()).toEqual({ isStreaming: false, sessionId: "fake" });
		await rpc.stop();
	});

	it("a request unanswered within requestTimeoutMs rejects with OPERATION_STALLED; the client goes on", async () => {
		const rpc = new RpcClient({ command: [process.execPath, FAKE], requestTimeoutMs: 1000 });
		await rpc.start(); // not limited by requestTimeoutMs: a loaded machine may take longer to start node
		const error = await rejection(rpc.abort());
		expect(error).toMatchObject({ code: "OPERATION_STALLED", details: { command: "abort", timeoutMs: 1000 } });
		expect(error.message).toContain('No response to "abort" within 1000 ms');
		expect(await rpc.getState()).toMatchObject({ sessionId: "fake" });
		await rpc.stop();
	});

	it("a refused prompt rejects promptAndWait at once with COMMAND_FAILED (pi's client would wait for agent_end)", async () => {
		const rpc = new RpcClient({ command: [process.execPath, FAKE] });
		await rpc.start();
		const error = await rejection(rpc.promptAndWait("hi", undefined, 600_000));
		expect(error).toMatchObject({
			code: "COMMAND_FAILED",
			message: "No model selected.",
			details: { command: "prompt" },
		});
		await rpc.stop();
	});

	it("a crash rejects the pending call with the exit code and the end of stderr", async () => {
		const stderr: string[] = [];
		const rpc = new RpcClient({ command: [process.execPath, FAKE], onStderr: (text) => stderr.push(text) });
		await rpc.start();
		const error = await rejection(rpc.bash("ls"));
		expect(error.code).toBe("SESSION_CLOSED");
		expect(error.details).toMatchObject({
			exitCode: 3,
			signal: null,
			command: "bash",
			stderr: "fatal: out of cheese\n",
		});
		expect(error.message).toContain('RPC server (while "bash" was pending): the process exited with code 3.');
		expect(error.message).toContain("fatal: out of cheese");
		expect(stderr.join("")).toBe("fatal: out of cheese\n");
		await rpc.stop();
	});

	it("a dialog handler that throws cancels the dialog and is reported once as a LISTENER warning; a throwing event listener is skipped", async () => {
		const broken = new Error("handler bug");
		const rpc = new RpcClient({
			command: [process.execPath, FAKE],
			onExtensionUIRequest: () => {
				throw broken;
			},
		});
		const warnings: Error[] = [];
		const warned = new Promise<void>((resolve) => {
			const onWarning = (warning: Error) => {
				warnings.push(warning);
				if (warnings.length < 2) return;
				process.off("warning", onWarning);
				resolve();
			};
			process.on("warning", onWarning);
		});
		rpc.onEvent(() => {
			throw new Error("listener bug");
		});
		const answered = new Promise<RpcEvent>((resolve) =>
			rpc.onEvent((event) => {
				if ((event.type as string) === "dialog_answered") resolve(event);
			}),
		);
		await rpc.start();
		expect(await rpc.getCommands()).toEqual([]);
		expect(await answered).toEqual({
			type: "dialog_answered",
			answer: { type: "extension_ui_response", id: "d1", cancelled: true },
		});
		await warned;
		expect(warnings.map((warning) => (warning as SettleError).details?.source).sort()).toEqual([
			"rpcClient.onEvent",
			"rpcClient.onExtensionUIRequest",
		]);
		expect(warnings.every((warning) => warning instanceof SettleError && warning.code === "LISTENER")).toBe(true);
		await rpc.stop();
	});
});

describe("RpcClient methods: pi's names, the commands they send, the data they return", () => {
	it("has every public method of pi 0.73.1's RpcClient (switching is a change of import)", () => {
		const piPrivate = ["constructor", "handleLine", "send", "getData"];
		const piMethods = Object.getOwnPropertyNames(PiRpcClient.prototype).filter((name) => !piPrivate.includes(name));
		expect(piMethods.length).toBeGreaterThan(30);
		const ours = new Set(Object.getOwnPropertyNames(RpcClient.prototype));
		expect(piMethods.filter((name) => !ours.has(name))).toEqual([]);
	});

	it("each method sends its command with its fields and unwraps the response as pi's RpcClient does", async () => {
		const rpc = new RpcClient({ command: [process.execPath, FAKE] });
		const received: unknown[] = [];
		rpc.onEvent((event) => {
			if ((event.type as string) === "received") received.push((event as unknown as { command: unknown }).command);
		});
		await rpc.start();
		const data = (of: string) => ({ of, messages: ["m"], models: ["M"], commands: ["c"], text: "t" });
		const image = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };
		const cases: [string, () => Promise<unknown>, Record<string, unknown>, unknown][] = [
			// Settle's steer / follow_up answer their disposition (pi#9803); the client returns the data.
			["steer", () => rpc.steer("s", [image]), { type: "steer", message: "s", images: [image] }, data("steer")],
			["followUp", () => rpc.followUp("f"), { type: "follow_up", message: "f" }, data("follow_up")],
			["clearQueue", () => rpc.clearQueue(), { type: "clear_queue" }, data("clear_queue")],
			[
				"newSession",
				() => rpc.newSession("/p.jsonl"),
				{ type: "new_session", parentSession: "/p.jsonl" },
				data("new_session"),
			],
			[
				"setModel",
				() => rpc.setModel("faux", "m1"),
				{ type: "set_model", provider: "faux", modelId: "m1" },
				data("set_model"),
			],
			["cycleModel", () => rpc.cycleModel(), { type: "cycle_model" }, data("cycle_model")],
			["getAvailableModels", () => rpc.getAvailableModels(), { type: "get_available_models" }, ["M"]],
			[
				"setThinkingLevel",
				() => rpc.setThinkingLevel("high"),
				{ type: "set_thinking_level", level: "high" },
				data("set_thinking_level"),
			],
			[
				"cycleThinkingLevel",
				() => rpc.cycleThinkingLevel(),
				{ type: "cycle_thinking_level" },
				data("cycle_thinking_level"),
			],
			["setSteeringMode", () => rpc.setSteeringMode("all"), { type: "set_steering_mode", mode: "all" }, undefined],
			[
				"setFollowUpMode",
				() => rpc.setFollowUpMode("one-at-a-time"),
				{ type: "set_follow_up_mode", mode: "one-at-a-time" },
				undefined,
			],
			[
				"compact",
				() => rpc.compact("keep it short"),
				{ type: "compact", customInstructions: "keep it short" },
				data("compact"),
			],
			[
				"setAutoCompaction",
				() => rpc.setAutoCompaction(false),
				{ type: "set_auto_compaction", enabled: false },
				undefined,
			],
			["setAutoRetry", () => rpc.setAutoRetry(true), { type: "set_auto_retry", enabled: true }, undefined],
			["abortRetry", () => rpc.abortRetry(), { type: "abort_retry" }, undefined],
			["abortBash", () => rpc.abortBash(), { type: "abort_bash" }, undefined],
			["getSessionStats", () => rpc.getSessionStats(), { type: "get_session_stats" }, data("get_session_stats")],
			[
				"exportHtml",
				() => rpc.exportHtml("out.html"),
				{ type: "export_html", outputPath: "out.html" },
				data("export_html"),
			],
			[
				"switchSession",
				() => rpc.switchSession("/s.jsonl"),
				{ type: "switch_session", sessionPath: "/s.jsonl" },
				data("switch_session"),
			],
			["fork", () => rpc.fork("e1"), { type: "fork", entryId: "e1" }, data("fork")],
			["clone", () => rpc.clone(), { type: "clone" }, data("clone")],
			["getForkMessages", () => rpc.getForkMessages(), { type: "get_fork_messages" }, ["m"]],
			["getLastAssistantText", () => rpc.getLastAssistantText(), { type: "get_last_assistant_text" }, "t"],
			["setSessionName", () => rpc.setSessionName("n"), { type: "set_session_name", name: "n" }, undefined],
			["getMessages", () => rpc.getMessages(), { type: "get_messages" }, ["m"]],
		];
		for (const [name, call, command, result] of cases) {
			expect(await call(), name).toEqual(result);
			expect(received.at(-1), name).toEqual(command);
		}
		expect(received).toHaveLength(cases.length);
		await rpc.stop();
	});
});

describe("RpcClient before start()", () => {
	it("commands, waits and the iterator reject with SESSION_CLOSED saying to call start(); stop() resolves", async () => {
		const rpc = new RpcClient({ command: [process.execPath, FAKE] });
		for (const pending of [rpc.getState(), rpc.waitForIdle(), rpc.events().next()]) {
			const error = await rejection(pending);
			expect(error.code).toBe("SESSION_CLOSED");
			expect(error.message).toContain("not started");
		}
		await rpc.stop();
		expect(rpc.exit).toBeUndefined();
	});
});

describe("pi 0.73.1 compatibility", () => {
	it("pi's own RpcClient drives settle --rpc: prompt, events to agent_end, state, stop", async () => {
		const pi = new PiRpcClient({
			cliPath: cliBundle(),
			cwd: cli.project,
			env: { SETTLE_AGENT_DIR: cli.agentDir },
			args: ["--faux", "--no-session"],
		});
		await pi.start();
		const events = await pi.promptAndWait("from pi's client");
		expect(events.at(-1)?.type).toBe("agent_end");
		expect(await pi.getLastAssistantText()).toBe("from pi's client");
		expect(await pi.getState()).toMatchObject({ isStreaming: false, model: { provider: "faux", id: "faux-1" } });
		expect(await pi.newSession()).toEqual({ cancelled: false });
		await pi.stop();
		expect(pi.getStderr()).toBe("");
	});

	it("Settle's RpcClient drives pi's RPC mode (the command option): prompt to agent_end, state, a refused command", async () => {
		const dirs = ["cwd", "agent", "sessions"].map((name) => join(cli.dir, `pi-${name}`));
		for (const dir of dirs) mkdirSync(dir, { recursive: true });
		const replies = join(cli.dir, "replies.json");
		writeFileSync(replies, JSON.stringify(["pi answers"]));
		const rpc = new RpcClient({
			command: [process.execPath, join(ROOT, "test", "cli", "pi-rpc-peer.mjs"), ...dirs, replies],
		});
		await rpc.start();
		expect(rpc.idleEvent).toBe("agent_end");
		const events = await rpc.promptAndWait("hello pi");
		expect(events.at(-1)?.type).toBe("agent_end");
		expect(await rpc.getLastAssistantText()).toBe("pi answers");
		expect(await rpc.getState()).toMatchObject({ isStreaming: false, messageCount: 2 });
		expect((await rejection(rpc.setModel("faux", "nope"))).message).toBe("Model not found: faux/nope");
		await rpc.stop();
	});
});
