/**
 * Reports about the order in which queued messages reach the model, replayed on a real disk
 * session with the real `bash` tool. atomic#2074: messages are to be consumed in the order they
 * were submitted within a delivery class, whatever path they took; atomic's held messages jumped
 * ahead of later ones. In Settle an extension's async `input` hook decides each `steer()` /
 * `followUp()` before it is queued; a slow hook on the first message must not let the second
 * overtake it. github/app#430: with a follow-up already queued, a steer sent after it must be the
 * message the model gets at the next tool boundary, the follow-up only once the run would stop.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, gate, persistedUserTexts, reopenedContext, script, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

const lastUser = (context: Context | undefined) => (context ? userTexts(context).at(-1) : undefined);

describe("atomic#2074: queued messages overtake each other", () => {
	it.each([
		["steer", "steer()"],
		["followUp", "followUp()"],
		["steer", "prompt() with streamingBehavior (a line typed in settle -i)"],
	] as const)(
		"atomic#2074: two %s messages sent with %s, the first held by a slow input hook, reach the model and the file in the order they were sent",
		async (kind, how) => {
			const send = (text: string): Promise<string> =>
				how.startsWith("prompt")
					? h!.session.prompt(text, { streamingBehavior: kind }).then(() => "queued")
					: h!.session[kind](text);
			const slowHook = gate();
			let firstQueued!: () => void;
			const queuedFirst = new Promise<void>((resolve) => {
				firstQueued = resolve;
			});
			h = await createHarness({
				persistence: "disk",
				initialActiveToolNames: ["bash"],
				extensionFactories: [
					(pi: ExtensionAPI) => {
						// An input hook that looks something up for some messages (here: the first one).
						pi.on("input", async (event) => {
							if (event.text === "first") await slowHook.promise;
							return { action: "continue" };
						});
						// The tool runs once both were sent: the lookup ends now, before the tool does.
						pi.on("tool_call", async () => {
							slowHook.release();
							await queuedFirst;
							return undefined;
						});
					},
				],
			});
			const harness = h;
			harness.session.subscribe((event) => {
				if (event.type !== "queue_update") return;
				const list = kind === "steer" ? event.steering : event.followUp;
				if (list.includes("first")) firstQueued();
			});
			const sent: Promise<string>[] = [];
			const { answerRequests } = script(harness, [
				() => {
					sent.push(send("first"), send("second"));
					return fauxAssistantMessage([fauxToolCall("bash", { command: "true" }, { id: "call-1" })], {
						stopReason: "toolUse",
					});
				},
				fauxAssistantMessage("answer one"),
				fauxAssistantMessage("answer two"),
				fauxAssistantMessage("answer three"),
			]);
			await harness.session.prompt("start");
			expect(await Promise.all(sent)).toEqual(["queued", "queued"]);

			// One at a time (the default mode): each queued message gets its own request, in send order;
			// steers right after the tool result, follow-ups once the run would stop.
			const order = kind === "steer" ? ["start", "first", "second"] : ["start", "start", "first", "second"];
			expect(answerRequests.map(lastUser)).toEqual(order);
			expect(persistedUserTexts(harness.session.sessionFile!)).toEqual(["start", "first", "second"]);
			expect(reopenedContext(harness.session.sessionFile!).map(comparable)).toEqual(
				harness.session.messages.map(comparable),
			);
		},
	);
});

describe("github/app#430: a queued follow-up is sent instead of the steer", () => {
	it("github/app#430: a steer sent after a queued follow-up is what the model gets after the tool; the follow-up comes last", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash"] });
		const harness = h;
		const sent: Promise<string>[] = [];
		const { answerRequests } = script(harness, [
			() => {
				sent.push(harness.session.followUp("then update the docs"));
				sent.push(harness.session.steer("use the staging database instead"));
				return fauxAssistantMessage([fauxToolCall("bash", { command: "true" }, { id: "call-1" })], {
					stopReason: "toolUse",
				});
			},
			fauxAssistantMessage("switched to staging"),
			fauxAssistantMessage("docs updated"),
		]);
		await harness.session.prompt("migrate the database");
		expect(await Promise.all(sent)).toEqual(["queued", "queued"]);

		expect(answerRequests).toHaveLength(3);
		// The request right after the tool result carries the steer, not the follow-up.
		expect(answerRequests[1]!.messages.slice(-2).map((message) => message.role)).toEqual(["toolResult", "user"]);
		expect(userTexts(answerRequests[1]!)).toEqual(["migrate the database", "use the staging database instead"]);
		expect(lastUser(answerRequests[2])).toBe("then update the docs");
		expect(persistedUserTexts(harness.session.sessionFile!)).toEqual([
			"migrate the database",
			"use the staging database instead",
			"then update the docs",
		]);
		expect(harness.session.pendingMessageCount).toBe(0);
	});
});
