/**
 * oh-my-pi#10563 (review): a bridge's "stop, do this instead" is `clear_queue`, then `abort`, then
 * the new prompt. A steer the client sent just before, whose extension `input` hook was still
 * running, was in neither queue when `clear_queue` emptied them: queued once its hook returned, it
 * survived the clear and the abort, and the new prompt's run delivered the old instruction ahead of
 * the new one. Replayed on a real `settle --rpc` process (the scripted faux model, the real `bash`
 * tool, an extension loaded from disk) and through the SDK for the other ways a message is queued.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, fileAppears, GATED_COMMAND, Repl, transcript } from "../cli/interactive.helpers.js";
import { gate, gatedTool, persistedUserTexts, script, userTexts, writeExtension } from "./helpers.js";

const cli = useCliProject("settle-pi-races-queue-clear-");

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** An `input` hook that looks up "old plan" messages until the run ends (it says when it starts). */
const SLOW_LOOKUP = `
	let runEnded;
	const ended = new Promise((resolve) => (runEnded = resolve));
	pi.on("agent_end", () => runEnded());
	pi.on("input", async (event, ctx) => {
		if (!event.text.includes("old plan")) return { action: "continue" };
		ctx.ui.notify("looking up " + event.text, "info");
		await ended;
		return { action: "continue" };
	});`;

describe("oh-my-pi#10563 (review): clear_queue then abort cannot drop a steer whose input hook still runs", () => {
	it("oh-my-pi#10563: settle --rpc: a steer still in its input hook at clear_queue is returned by clear_queue and answered not queued; after the abort the new prompt's run never sees it", async () => {
		const steps = join(cli.dir, "steps.json");
		writeFileSync(
			steps,
			JSON.stringify([
				{ toolCalls: [{ name: "bash", arguments: { command: "sleep 30" }, id: "call-1" }] },
				"doing the new plan",
			]),
		);
		const extension = writeExtension(cli.dir, "slow-lookup.mjs", SLOW_LOOKUP);
		const client = new RpcClient(["--faux-script", steps, "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		const toolRuns = client.next((line) => line.type === "tool_execution_start");
		expect(await client.request({ id: "p1", type: "prompt", message: "run the tests" })).toMatchObject({
			success: true,
		});
		await toolRuns;
		const hookRuns = client.next((line) => line.method === "notify");
		const steered = client.request({ id: "s1", type: "steer", message: "use the old plan" });
		expect(await hookRuns).toMatchObject({ message: "looking up use the old plan" });

		// "Stop, do this instead": clear, abort, the new prompt.
		expect(await client.request({ id: "c1", type: "clear_queue" })).toMatchObject({
			success: true,
			data: { steering: ["use the old plan"], followUp: [] },
		});
		expect(await client.request({ id: "a1", type: "abort" })).toMatchObject({ success: true });
		expect(await steered).toMatchObject({
			success: false,
			error: expect.stringContaining('"use the old plan" was not queued: clearQueue() ran while its input hooks did'),
		});
		await client.promptAndSettle("do the new plan", "p2");

		const { data } = (await client.request({ id: "m1", type: "get_messages" })) as {
			data: { messages: { role: string; content: { type: string; text?: string }[] | string }[] };
		};
		const said = data.messages
			.filter((message) => message.role === "user")
			.map((message) =>
				typeof message.content === "string" ? message.content : message.content.map((b) => b.text ?? "").join(""),
			);
		expect(said).toEqual(["run the tests", "do the new plan"]);
		expect(client.lines.filter((line) => line.type === "queue_update").at(-1)).toMatchObject({
			steering: [],
			followUp: [],
		});
		expect(await client.end()).toBe(0);
	});
});

describe("oh-my-pi#10563 (review): the other ways a message is queued", () => {
	it.each([
		["followUp", "followUp()"],
		["steer", "prompt() with streamingBehavior (a line typed in settle -i, then Ctrl+C)"],
		["followUp", "sendUserMessage(…, { deliverAs })"],
	] as const)(
		"oh-my-pi#10563: a %s sent with %s, its input hook running at clearQueue(): returned by it, rejected ABORTED, never delivered",
		async (kind, how) => {
			const toolRuns = gate();
			const toolDone = gate();
			const hookRuns = gate();
			const lookupDone = gate();
			h = await createHarness({
				persistence: "disk",
				tools: [gatedTool(toolRuns.release, toolDone.promise)],
				extensionFactories: [
					(pi: ExtensionAPI) =>
						pi.on("input", async (event) => {
							if (event.text !== "use the old plan") return { action: "continue" };
							hookRuns.release();
							await lookupDone.promise;
							return { action: "continue" };
						}),
				],
			});
			const session = h.session;
			const { answerRequests } = script(h, [
				fauxAssistantMessage([fauxToolCall("run_tests", {}, { id: "call-1" })], { stopReason: "toolUse" }),
				fauxAssistantMessage("doing the new plan"),
			]);
			const running = session.prompt("run the tests");
			await toolRuns.promise;
			const sent: Promise<unknown> = how.startsWith("prompt")
				? session.prompt("use the old plan", { streamingBehavior: kind })
				: how.startsWith("send")
					? session.sendUserMessage("use the old plan", { deliverAs: kind })
					: session[kind]("use the old plan");
			const refused = sent.then(
				() => undefined,
				(error: unknown) => error,
			);
			await hookRuns.promise;

			const cleared = session.clearQueue();
			expect(cleared).toEqual(
				kind === "steer"
					? { steering: ["use the old plan"], followUp: [] }
					: { steering: [], followUp: ["use the old plan"] },
			);
			const aborted = session.abort();
			lookupDone.release();
			toolDone.release();
			await aborted;
			await running;
			const error = await refused;
			expect(error).toBeInstanceOf(SettleError);
			expect(error).toMatchObject({
				code: "ABORTED",
				message: expect.stringContaining(
					'"use the old plan" was not queued: clearQueue() ran while its input hooks did',
				),
			});
			expect(session.getSteeringMessages()).toEqual([]);
			expect(session.getFollowUpMessages()).toEqual([]);

			await session.prompt("do the new plan");
			expect(answerRequests.map((request) => userTexts(request))).toEqual([
				["run the tests"],
				["run the tests", "do the new plan"],
			]);
			expect(persistedUserTexts(session.sessionFile!)).toEqual(["run the tests", "do the new plan"]);
		},
	);
});

describe("oh-my-pi#10563 (review): a busy prompt() still in the session machine's mailbox at clearQueue()", () => {
	it.each([
		["steer", "prompt(…, { streamingBehavior })"],
		["followUp", "prompt(…, { streamingBehavior })"],
		["steer", "sendUserMessage(…, { deliverAs })"],
		["followUp", "sendUserMessage(…, { deliverAs })"],
	] as const)(
		"oh-my-pi#10563: a %s sent with %s from an agent_start listener, then clearQueue(): returned by it, rejected ABORTED, never delivered; one sent after the clear is",
		async (kind, how) => {
			h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash"] });
			const harness = h;
			let cleared: ReturnType<typeof harness.session.clearQueue> | undefined;
			const sent: Promise<unknown>[] = [];
			// agent_start is emitted while the machine handles the run's start: the request waits in its
			// mailbox, the clear and the direct call do not.
			harness.session.subscribe((event) => {
				if (event.type !== "agent_start" || cleared) return;
				const old = how.startsWith("prompt")
					? harness.session.prompt("use the old plan", { streamingBehavior: kind })
					: harness.session.sendUserMessage("use the old plan", { deliverAs: kind });
				sent.push(
					old.then(
						() => undefined,
						(error: unknown) => error,
					),
				);
				cleared = harness.session.clearQueue();
				sent.push(harness.session[kind]("use the new plan"));
			});
			const { answerRequests } = script(harness, [
				fauxAssistantMessage([fauxToolCall("bash", { command: "true" }, { id: "call-1" })], { stopReason: "toolUse" }),
				fauxAssistantMessage("answer one"),
				fauxAssistantMessage("answer two"),
			]);
			await harness.session.prompt("run the tests");
			const [refused, queued] = await Promise.all(sent);

			expect(cleared).toEqual(
				kind === "steer"
					? { steering: ["use the old plan"], followUp: [] }
					: { steering: [], followUp: ["use the old plan"] },
			);
			expect(refused).toBeInstanceOf(SettleError);
			expect(refused).toMatchObject({
				code: "ABORTED",
				message: expect.stringContaining(
					'"use the old plan" was not queued: clearQueue() ran before the session took it up',
				),
			});
			expect(queued).toBe("queued");
			expect(answerRequests.flatMap((request) => userTexts(request))).not.toContain("use the old plan");
			expect(persistedUserTexts(harness.session.sessionFile!)).toEqual(["run the tests", "use the new plan"]);
			expect(harness.session.pendingMessageCount).toBe(0);
		},
	);
});

describe("oh-my-pi#10563 (review): a prompt() with streamingBehavior sent as the operation settles, then clearQueue()", () => {
	it("oh-my-pi#10563: sent from an agent_settled listener and cleared at once: returned by clearQueue(), rejected ABORTED, never run as a prompt of its own", async () => {
		h = await createHarness({ persistence: "disk" });
		const harness = h;
		let cleared: ReturnType<typeof harness.session.clearQueue> | undefined;
		let refused: Promise<unknown> | undefined;
		harness.session.subscribe((event) => {
			if (event.type !== "agent_settled" || refused) return;
			refused = harness.session.prompt("use the old plan", { streamingBehavior: "followUp" }).then(
				() => undefined,
				(error: unknown) => error,
			);
			cleared = harness.session.clearQueue();
		});
		const { answerRequests } = script(harness, [
			fauxAssistantMessage("answer one"),
			fauxAssistantMessage("answer two"),
		]);
		await harness.session.prompt("run the tests");
		const error = await refused;
		await harness.session.waitForIdle();

		expect(cleared).toEqual({ steering: [], followUp: ["use the old plan"] });
		expect(error).toMatchObject({ code: "ABORTED", message: expect.stringContaining("before the session took it up") });
		expect(answerRequests.flatMap((request) => userTexts(request))).not.toContain("use the old plan");
		expect(persistedUserTexts(harness.session.sessionFile!)).toEqual(["run the tests"]);
	});

	it("oh-my-pi#10563: the refusal quotes a long cleared message cut before an emoji, never between its halves", async () => {
		h = await createHarness({ persistence: "memory" });
		const harness = h;
		// The emoji's halves are the 60th and 61st characters, where the quote is cut.
		const text = `${"a".repeat(59)}😀 and more`;
		let refused: Promise<unknown> | undefined;
		harness.session.subscribe((event) => {
			if (event.type !== "agent_settled" || refused) return;
			refused = harness.session.prompt(text, { streamingBehavior: "followUp" }).catch((error: unknown) => error);
			harness.session.clearQueue();
		});
		script(harness, [fauxAssistantMessage("answer one")]);
		await harness.session.prompt("run the tests");
		const error = (await refused) as SettleError;
		expect(error.message).toContain(`"${"a".repeat(59)}…" was not queued`);
		expect(error.message).not.toMatch(/\p{Cs}/u); // no lone half of a surrogate pair
	});
});

describe("oh-my-pi#10563 (review): Ctrl+C in settle -i while a typed line's input hook runs", () => {
	it("oh-my-pi#10563: settle -i: a line typed during a run, its input hook still running at Ctrl+C, is listed as not sent (no error) and never reaches the model", async () => {
		const steps = join(cli.dir, "chat-steps.json");
		writeFileSync(
			steps,
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }, "doing the new plan"]),
		);
		const extension = writeExtension(cli.dir, "slow-lookup.mjs", SLOW_LOOKUP);
		const chat = new Repl(["--faux-script", steps, "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		chat.send("run the tests");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.send("use the old plan");
		await chat.until("looking up use the old plan", from);
		chat.child.kill("SIGINT");
		const aborted = await chat.idle(from, "Aborted.\n");
		expect(aborted).toContain("Not sent: use the old plan\n");
		expect(aborted).not.toMatch(/error|was not queued/i);
		await chat.say("do the new plan", "doing the new plan");
		expect(await chat.end()).toBe(0);
		const said = transcript(bannerSessionFile(chat.stdout)).filter((line) => line.startsWith("user:"));
		expect(said).toEqual(["user: run the tests", "user: do the new plan"]);
	});
});
