/**
 * A boundary handler left behind after the abort's grace must not act in the next operation
 * (Settle's own gap, pi 0.73.1 the same: its handlers read the session's current signal and act on
 * the session through `pi`, whatever operation runs now).
 *
 * An extension's `turn_end` / `agent_before_settle` handler ignores Esc; after the 1 s grace the
 * operation settles without it. It resumes while the user's next prompt runs and reads
 * `ctx.signal`, then appends an entry, sends a message, queues a follow-up and notifies. What the
 * user should see: its `ctx.signal` is its own operation's, aborted; each of those is refused with a
 * `STALE_CONTEXT` error the user is told of, naming the extension and the event; the next
 * operation's events and the session file hold nothing of it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI, ExtensionContext } from "../../src/extensions/types.js";
import type { AgentSessionEvent } from "../../src/index.js";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import {
	abortPastGrace,
	type DiskSession,
	diskSessionsPerTest,
	fileMessages,
	holdFirstCall,
	readEntries,
} from "./disk-harness.js";
import { comparable, reopenedContext } from "./helpers.js";

const disk = diskSessionsPerTest();
const cli = useCliProject("settle-pi-races-left-behind-");

/** A promise with its resolver, for a hook the test holds. */
function gate(): { opened: Promise<void>; open: () => void } {
	let open!: () => void;
	const opened = new Promise<void>((resolve) => {
		open = resolve;
	});
	return { opened, open };
}

/** What the left-behind handler saw when it resumed: its signal, and each call's error code (`ok` when it went through). */
interface Resumed {
	signalAborted: boolean | undefined;
	/** The signal of a copy of its ctx made by descriptors (a helper's clone). */
	copySignalAborted?: boolean | undefined;
	calls: Record<string, string>;
}

/** `call`'s outcome: `ok`, or the code (else the message) of what it threw. */
function outcome(call: () => unknown): string {
	try {
		call();
		return "ok";
	} catch (error) {
		return (error as { code?: string }).code ?? String(error);
	}
}

/**
 * What a resumed left-behind handler tries, in this order: pi.appendEntry, pi.sendMessage,
 * pi.sendUserMessage, the calls of `also`, ctx.ui.notify; with its signal, each one's outcome.
 */
function tryLateCalls(pi: ExtensionAPI, ctx: ExtensionContext, also: Record<string, () => unknown> = {}): Resumed {
	const calls: Record<string, string> = {
		appendEntry: outcome(() => pi.appendEntry("review", { verdict: "late" })),
		sendMessage: outcome(() => pi.sendMessage({ customType: "review", content: "late review", display: true })),
		sendUserMessage: outcome(() => pi.sendUserMessage("late follow-up", { deliverAs: "followUp" })),
	};
	for (const [name, call] of Object.entries(also)) calls[name] = outcome(call);
	calls.notify = outcome(() => ctx.ui.notify("late review done"));
	return { signalAborted: ctx.signal?.aborted, calls };
}

/**
 * Runs the next prompt and, while its answer streams, lets the held handler resume (`late`) and
 * waits until it has acted (`acted`); resolves once that prompt and the extensions' runs are over.
 */
async function resumeDuringNextPrompt(
	d: DiskSession,
	late: { open: () => void },
	acted: { opened: Promise<void> },
): Promise<void> {
	const second = d.session.prompt("and now the summary");
	const request = await d.provider.next();
	request.beginText("The summary");
	late.open();
	await acted.opened;
	// Requests the late message and follow-up would add are answered at once: the test sees them rather than hangs.
	d.provider.answer("an answer to the late message", "an answer to the late follow-up");
	request.finish(d.provider.reply("The summary is short."));
	await second;
	await d.session.waitForExtensionRuns();
}

describe("a boundary handler left behind after the abort's grace acts in the next operation", () => {
	it.each(["turn_end", "agent_before_settle"] as const)(
		"%s: resumed during the next prompt, its ctx.signal is its own aborted one and its appendEntry, sendMessage, sendUserMessage and ui.notify are refused and reported naming it; the next operation and the file hold none of them",
		async (event) => {
			const acted = gate();
			let resumed: Resumed | undefined;
			const hold = holdFirstCall(event, (pi, ctx) => {
				resumed = tryLateCalls(pi, ctx);
				acted.open();
				// Not caught: the handler ends with the refusal, reported once.
				pi.setSessionName("late name");
			});
			const d = await disk.session({ extensionFactories: [hold.factory] });
			const errors = await abortPastGrace(d, hold.holding.opened, hold.held);
			const [path] = d.session.extensionRunner.handlerPaths(event);
			expect(errors).toEqual([expect.objectContaining({ extensionPath: path, event })]);

			// The next prompt runs; while its answer streams, the left-behind handler resumes.
			const eventsBefore = d.events.length;
			await resumeDuringNextPrompt(d, hold.late, acted);

			expect(resumed).toEqual({
				signalAborted: true,
				calls: {
					appendEntry: "STALE_CONTEXT",
					sendMessage: "STALE_CONTEXT",
					sendUserMessage: "STALE_CONTEXT",
					notify: "STALE_CONTEXT",
				},
			});
			// Told, each naming the extension and the event.
			expect(
				errors.slice(1).map((error) => [error.extensionPath, error.event, error.error.split(" refused")[0]]),
			).toEqual([
				[path, event, "pi.appendEntry"],
				[path, event, "pi.sendMessage"],
				[path, event, "pi.sendUserMessage"],
				[path, event, "ctx.ui"],
				[path, event, "pi.setSessionName"],
			]);
			expect(errors[1]!.error).toContain("left behind after the abort");
			expect(d.session.sessionName).toBeUndefined();

			// The next operation: its own prompt and answer, nothing of the handler (no notification, entry or message).
			const fromHandler = (e: AgentSessionEvent) => JSON.stringify(e).includes("late");
			expect(d.events.slice(eventsBefore).filter(fromHandler)).toEqual([]);
			const file = d.session.sessionFile!;
			expect(readEntries(file).filter((entry) => entry.customType === "review")).toEqual([]);
			const roles = fileMessages(file).map((message) => message.role);
			expect(roles.filter((role) => role !== "system")).toEqual(["user", "assistant", "user", "assistant"]);
			expect(reopenedContext(file).map(comparable)).toEqual(d.session.messages.map(comparable));
		},
	);
});

/** A turn whose answer runs `echo done` as bash call `call_echo`, for the tool handlers to hold. */
const echoTurn = (d: DiskSession) => ({
	prompt: "echo it",
	answer: d.provider.bashCallReply("echo done", "call_echo"),
});

describe("a tool_call / tool_result handler left behind after the abort's grace acts in the next operation", () => {
	it.each(["tool_call", "tool_result"] as const)(
		"%s: resumed during the next prompt, its ctx.signal (a clone's by descriptors too) is its own aborted one and its appendEntry, sendMessage, sendUserMessage, setSessionName and ui.notify are refused and reported naming it; the next operation and the file hold none of them",
		async (event) => {
			const acted = gate();
			let resumed: Resumed | undefined;
			let afterReturn = "";
			const hold = holdFirstCall(event, (pi, ctx) => {
				const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(ctx)) as typeof ctx;
				resumed = {
					...tryLateCalls(pi, ctx, { setSessionName: () => pi.setSessionName("late name") }),
					copySignalAborted: copy.signal?.aborted,
				};
				// Work it leaves running once it has returned, late: refused as well.
				setTimeout(() => {
					afterReturn = outcome(() => pi.appendEntry("review", { verdict: "later still" }));
					acted.open();
				}, 0);
			});
			const d = await disk.session({ extensionFactories: [hold.factory] });
			const errors = await abortPastGrace(d, hold.holding.opened, hold.held, echoTurn(d));
			const [path] = d.session.extensionRunner.handlerPaths(event);

			const eventsBefore = d.events.length;
			await resumeDuringNextPrompt(d, hold.late, acted);

			expect(resumed).toEqual({
				signalAborted: true,
				// A clone by descriptors reads the call's signal too (it read the next prompt's, not aborted).
				copySignalAborted: true,
				calls: {
					appendEntry: "STALE_CONTEXT",
					sendMessage: "STALE_CONTEXT",
					sendUserMessage: "STALE_CONTEXT",
					setSessionName: "STALE_CONTEXT",
					notify: "STALE_CONTEXT",
				},
			});
			expect(afterReturn).toBe("STALE_CONTEXT");
			expect(errors.map((error) => [error.extensionPath, error.event, error.error.split(" refused")[0]])).toEqual([
				[path, event, "pi.appendEntry"],
				[path, event, "pi.sendMessage"],
				[path, event, "pi.sendUserMessage"],
				[path, event, "pi.setSessionName"],
				[path, event, "ctx.ui"],
				[path, event, "pi.appendEntry"],
			]);
			expect(errors[0]!.error).toContain(`this ${event} handler was left behind after the abort`);
			expect(d.session.sessionName).toBeUndefined();

			const fromHandler = (e: AgentSessionEvent) => JSON.stringify(e).includes("late");
			expect(d.events.slice(eventsBefore).filter(fromHandler)).toEqual([]);
			const file = d.session.sessionFile!;
			expect(readEntries(file).filter((entry) => entry.customType === "review")).toEqual([]);
			const roles = fileMessages(file).map((message) => message.role);
			expect(roles.filter((role) => role !== "system")).toEqual([
				"user",
				"assistant",
				"toolResult",
				"assistant", // the aborted answer
				"user",
				"assistant",
			]);
			expect(reopenedContext(file).map(comparable)).toEqual(d.session.messages.map(comparable));
		},
	);
});

describe("a handler left behind after a configured abort grace (agent.toolAbortGraceMs)", () => {
	it.each(["turn_end", "agent_before_settle", "tool_call", "tool_result"] as const)(
		"%s: with the grace set to 3000 ms, the user is told 3000 ms, not pi's 1000, when the abort leaves it and when what it does late is refused",
		async (event) => {
			const acted = gate();
			const hold = holdFirstCall(event, (pi) => {
				outcome(() => pi.appendEntry("review", { verdict: "late" }));
				acted.open();
			});
			const d = await disk.session({ extensionFactories: [hold.factory] });
			d.session.agent.toolAbortGraceMs = 3000;
			const tools = event === "tool_call" || event === "tool_result";
			const errors = await abortPastGrace(d, hold.holding.opened, hold.held, tools ? echoTurn(d) : undefined, 3000);
			await resumeDuringNextPrompt(d, hold.late, acted);

			const told = errors.map((error) => error.error);
			expect(told.at(-1)).toContain("left behind after the abort (it did not return within 3000 ms of it)");
			if (tools) {
				const result = d.session.messages.find((message) => message.role === "toolResult");
				expect(JSON.stringify(result)).toContain("did not return within 3000 ms of the abort");
			} else {
				expect(told[0]).toContain("did not return within 3000 ms of the abort");
			}
			expect(told.join("\n")).not.toContain("1000 ms");
		},
	);

	it("turn_end: with the grace set to 3000 ms, the abort still waits for the handler 1000 ms after it, and gives up at 3000 ms", async () => {
		const hold = holdFirstCall("turn_end", () => {});
		const d = await disk.session({ extensionFactories: [hold.factory] });
		d.session.agent.toolAbortGraceMs = 3000;
		const errors: string[] = [];
		d.session.extensionRunner.onError((error) => errors.push(error.error));
		d.provider.answer("report written");
		const run = d.session.prompt("write the report");
		await hold.holding.opened;
		const stopping = d.session.abort();
		d.clock.increment(2999);
		await new Promise((resolve) => setImmediate(resolve));
		expect(errors).toEqual([]);
		d.clock.increment(1);
		await stopping;
		await run;
		expect(errors).toEqual([expect.stringContaining("did not return within 3000 ms of the abort")]);
		hold.late.open();
	});
});

describe("the handlers after a tool_call / tool_result handler left behind do not start late", () => {
	it.each(["tool_call", "tool_result"] as const)(
		"%s: the next extension's handler is not called once the first returns after the grace: the call is over (it ran late, for a call long gone, and its notify was refused and reported as if it were left behind)",
		async (event) => {
			const returned = gate();
			const laterCalls: string[] = [];
			const hold = holdFirstCall(event, () => {
				setTimeout(returned.open, 0); // once the dispatch went on from this handler
			});
			const d = await disk.session({
				extensionFactories: [
					hold.factory,
					(pi) => {
						pi.on(event as "tool_call", (toolEvent, ctx) => {
							laterCalls.push(toolEvent.toolCallId);
							ctx.ui.notify(`audited ${toolEvent.toolCallId}`);
						});
					},
				],
			});
			const errors = await abortPastGrace(d, hold.holding.opened, hold.held, echoTurn(d));
			hold.late.open();
			await returned.opened;
			await new Promise((resolve) => setTimeout(resolve, 0));
			expect(laterCalls).toEqual([]);
			expect(errors).toEqual([]);
		},
	);
});

/**
 * An extension file whose first `turn_end` handler call says `holding`, ignores the abort until
 * `go` exists, then does what the SDK test's does and writes what happened to `acted` (JSON).
 */
function holdingExtension(go: string, acted: string): string {
	const file = join(cli.dir, "late-reviewer.ts");
	writeFileSync(
		file,
		`import { existsSync, writeFileSync } from "node:fs";
const outcome = (call: () => unknown) => {
	try {
		call();
		return "ok";
	} catch (error: any) {
		return error.code ?? String(error);
	}
};
export default function (pi: any) {
	let calls = 0;
	pi.on("turn_end", async (_event: unknown, ctx: any) => {
		if (calls++ > 0) return;
		ctx.ui.notify("holding");
		while (!existsSync(${JSON.stringify(go)})) await new Promise((resolve) => setTimeout(resolve, 20));
		const resumed = {
			signalAborted: ctx.signal?.aborted,
			calls: {
				appendEntry: outcome(() => pi.appendEntry("review", { verdict: "late" })),
				sendMessage: outcome(() => pi.sendMessage({ customType: "review", content: "late review", display: true })),
				sendUserMessage: outcome(() => pi.sendUserMessage("late follow-up", { deliverAs: "followUp" })),
				notify: outcome(() => ctx.ui.notify("late review done")),
			},
		};
		writeFileSync(${JSON.stringify(acted)}, JSON.stringify(resumed));
	});
}
`,
	);
	return file;
}

describe("only the handler left behind is refused", () => {
	it("a turn_end handler that returned in time, before another was left behind, still writes the entry its own background check appends later", async () => {
		const checked = gate();
		const written = gate();
		const hold = holdFirstCall("turn_end", () => {});
		let outcomeOfLateWrite = "";
		const d = await disk.session({
			extensionFactories: [
				(pi) => {
					let calls = 0;
					pi.on("turn_end", () => {
						if (calls++ > 0) return;
						// Returns at once; its check finishes later and notes the result.
						void checked.opened.then(() => {
							outcomeOfLateWrite = outcome(() => pi.appendEntry("lint", { clean: true }));
							written.open();
						});
					});
				},
				hold.factory,
			],
		});
		const errors = await abortPastGrace(d, hold.holding.opened, hold.held);
		checked.open();
		await written.opened;
		hold.late.open();
		const paths = d.session.extensionRunner.handlerPaths("turn_end");
		expect(errors.map((error) => error.extensionPath)).toEqual([paths[1]]);
		expect(outcomeOfLateWrite).toBe("ok");
		expect(readEntries(d.session.sessionFile!).filter((entry) => entry.customType === "lint")).toHaveLength(1);
	});
});

describe("a turn_end handler left behind in a real settle --rpc, loaded from an extension file", () => {
	it("settle --rpc -e late-reviewer.ts: Esc, then the next prompt: the handler resumes while that prompt's bash runs; its ctx.signal is aborted, its calls are refused with extension_error lines naming it, and the session file and the next operation's lines hold none of them", async () => {
		const go = join(cli.dir, "go");
		const acted = join(cli.dir, "acted.json");
		const script = join(cli.dir, "script.json");
		// The next prompt's answer runs a bash that waits for the handler to have acted.
		const waitForActed = `until [ -e '${acted}' ]; do sleep 0.05; done; echo checked`;
		writeFileSync(
			script,
			JSON.stringify([
				"report written",
				{ toolCalls: [{ name: "bash", arguments: { command: waitForActed }, id: "call-1" }] },
				"The summary is short.",
				// What the late message and follow-up would cost, were they let through.
				"an answer to the late message",
				"an answer to the late follow-up",
			]),
		);
		const extension = holdingExtension(go, acted);
		const client = new RpcClient(["--faux-script", script, "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const holding = client.next((line) => line.method === "notify" && line.message === "holding");
		let settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p1", type: "prompt", message: "write the report" })).toMatchObject({
			success: true,
		});
		await holding;
		expect(await client.request({ id: "a", type: "abort" })).toMatchObject({ success: true });
		await settled; // after the 1 s grace
		const extensionErrors = () => client.lines.filter((line) => line.type === "extension_error");
		expect(extensionErrors()).toEqual([
			expect.objectContaining({
				extensionPath: extension,
				event: "turn_end",
				error: expect.stringContaining("1000 ms"),
			}),
		]);

		const linesBefore = client.lines.length;
		const bashStarted = client.next((line) => line.type === "tool_execution_start");
		settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p2", type: "prompt", message: "and now the summary" })).toMatchObject({
			success: true,
		});
		await bashStarted;
		writeFileSync(go, "");
		await settled;
		const state = (await client.request({ id: "s", type: "get_state" })) as { data: { sessionFile: string } };
		expect(await client.end()).toBe(0);

		expect(existsSync(acted)).toBe(true);
		expect(JSON.parse(readFileSync(acted, "utf8"))).toEqual({
			signalAborted: true,
			calls: {
				appendEntry: "STALE_CONTEXT",
				sendMessage: "STALE_CONTEXT",
				sendUserMessage: "STALE_CONTEXT",
				notify: "STALE_CONTEXT",
			},
		});
		expect(
			extensionErrors()
				.slice(1)
				.map((line) => [line.extensionPath, line.event, String(line.error).split(" refused")[0]]),
		).toEqual([
			[extension, "turn_end", "pi.appendEntry"],
			[extension, "turn_end", "pi.sendMessage"],
			[extension, "turn_end", "pi.sendUserMessage"],
			[extension, "turn_end", "ctx.ui"],
		]);
		const nextOperation = client.lines.slice(linesBefore).filter((line) => line.type !== "extension_error");
		expect(nextOperation.filter((line) => JSON.stringify(line).includes("late"))).toEqual([]);
		const file = state.data.sessionFile;
		expect(readEntries(file).filter((entry) => entry.customType === "review")).toEqual([]);
		const texts = fileMessages(file)
			.filter((message) => message.role === "user")
			.map((message) => JSON.stringify(message.content));
		expect(texts.join()).not.toContain("late");
		expect(texts).toHaveLength(2);
	});
});
