/**
 * Reports about what one extension sees while another acts from the same event, replayed against
 * Settle: a compaction started with `ctx.compact()` from an `agent_settled` handler
 * (pi-powerline-footer#174, whose compaction-model extension does this after `compact_context`).
 * What the user should see: the compaction asked for runs, whatever the host does next; a prompt
 * sent meanwhile is told (a typed BUSY, as during any manual compaction) and answered once sent again.
 * A steer an extension sends from the `context` event while the model keeps calling tools was saved
 * twice for one send (pi#9322): it should be saved once and reach every later request once. A
 * `deliverAs: "nextTurn"` message sent while the answer streams was kept in memory only, unlike one
 * sent on an idle session, and lost without a word on quit (oh-my-pi#10311): both should be handled
 * alike, carried once by the next prompt, and handed back, not dropped, when the session closes first.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { type FauxResponseStep, fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, fileEntries, reopenedContext, script, timesPersisted, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/**
 * The compaction-model extension: once armed, compacts from the next `agent_settled` (once),
 * recording the outcome; `then` runs in the same dispatch right after asking.
 */
function compactOnSettle(outcome: string[], then?: () => void) {
	const state = { armed: false };
	const extension = (pi: ExtensionAPI) => {
		pi.on("agent_settled", (_event, ctx) => {
			if (!state.armed) return;
			state.armed = false;
			ctx.compact({
				onComplete: () => void outcome.push("compacted"),
				onError: (error) => void outcome.push(`failed: ${error.message}`),
			});
			then?.();
		});
	};
	const arm = () => {
		state.armed = true;
	};
	return { extension, arm };
}

describe("pi-powerline-footer#174: a compaction started from agent_settled, seen by another extension", () => {
	it("pi-powerline-footer#174: ctx.compact() from agent_settled runs even when the host's next prompt comes as soon as prompt() resolves; that prompt is refused with a typed BUSY and answered after the compaction once sent again", async () => {
		const outcome: string[] = [];
		const seenByOther: { idle: boolean; compacting: boolean }[] = [];
		const compaction = compactOnSettle(outcome);
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				compaction.extension,
				// Powerline: reads the session's state from its own agent_settled handler.
				(pi: ExtensionAPI) => {
					pi.on("agent_settled", (_event, ctx) => {
						seenByOther.push({ idle: ctx.isIdle(), compacting: harness().session.isCompacting });
					});
				},
			],
		});
		const harness = () => h!;
		const { answerRequests, summaryRequests } = script(h, [
			fauxAssistantMessage("one"),
			fauxAssistantMessage("two"),
			fauxAssistantMessage("answered after the compaction"),
		]);
		await h.session.prompt("a");
		compaction.arm();
		await h.session.prompt("b");
		// A chat or RPC host sends the next line the moment prompt() resolves: the compaction has
		// begun, so the line is refused with a typed BUSY (as during any manual compaction), not lost.
		const refused = await h.session
			.prompt("typed right after", { streamingBehavior: "followUp" })
			.catch((error: unknown) => error);
		expect(refused).toMatchObject({ code: "BUSY" });
		await h.session.waitForIdle();
		await h.session.prompt("typed right after");
		expect(outcome).toEqual(["compacted"]);
		expect(summaryRequests.length).toBeGreaterThan(0);
		const types = fileEntries(h.session.sessionFile!).map((entry) =>
			entry.type === "message" ? `${entry.message?.role}` : entry.type,
		);
		const compactionAt = types.indexOf("compaction");
		expect(compactionAt).toBeGreaterThan(0);
		// The line, sent again: answered once, after the compaction.
		expect(userTexts(answerRequests.at(-1)!).at(-1)).toBe("typed right after");
		expect(timesPersisted(h.session.sessionFile!, "typed right after")).toBe(1);
		expect(types.lastIndexOf("user")).toBeGreaterThan(compactionAt);
		expect(h.extensionErrors).toEqual([]);
		// Powerline's handler ran before the compaction began: idle, nothing compacting yet.
		expect(seenByOther.at(-1)).toEqual({ idle: true, compacting: false });
		expect(h.session.isIdle).toBe(true);
	});

	it("pi-powerline-footer#174: abortCompaction() while that compaction waits for the agent_settled handlers cancels it: onError hears it, nothing is written", async () => {
		const outcome: string[] = [];
		// Esc in the same dispatch (another extension's handler, or the host's listener).
		const compaction = compactOnSettle(outcome, () => h!.session.abortCompaction());
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [compaction.extension],
		});
		const { summaryRequests } = script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("a");
		compaction.arm();
		await h.session.prompt("b");
		await h.session.waitForIdle();
		expect(outcome).toEqual(["failed: Compaction cancelled"]);
		expect(summaryRequests).toHaveLength(0);
		expect(fileEntries(h.session.sessionFile!).some((entry) => entry.type === "compaction")).toBe(false);
		expect(h.session.isIdle).toBe(true);
	});
});

describe("pi#9322: a steer custom message sent from the context event saved twice while the agent keeps calling tools", () => {
	it("pi#9322: pi.sendMessage(…, { deliverAs: 'steer' }) once from the second request's context, batches of tool calls around it: one custom_message entry, in no request before it and once in every request after it; the file reopens to the live context", async () => {
		const step: AgentTool = {
			name: "step",
			label: "step",
			description: "one step of the work",
			parameters: { type: "object" },
			execute: async () => ({ content: [{ type: "text", text: "stepped" }], details: {} }),
		};
		let contexts = 0;
		h = await createHarness({
			persistence: "disk",
			tools: [step],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("context", () => {
						if (++contexts !== 2) return;
						void pi.sendMessage(
							{ customType: "reminder", content: "remember the rule", display: true, details: { rel: 1 } },
							{ deliverAs: "steer" },
						);
					});
				},
			],
		});
		const harness = h;
		// How often each request carried the reminder, answered with the scripted reply.
		const carried: number[] = [];
		const reply =
			(answer: ReturnType<typeof fauxAssistantMessage>): FauxResponseStep =>
			(context: Context) => {
				carried.push(JSON.stringify(context.messages).split("remember the rule").length - 1);
				return answer;
			};
		const calls = (...ids: string[]) =>
			fauxAssistantMessage(
				ids.map((id) => fauxToolCall("step", {}, { id })),
				{ stopReason: "toolUse" },
			);
		harness.setResponses([
			reply(calls("c1", "c2")),
			reply(calls("c3", "c4")),
			reply(calls("c5")),
			reply(fauxAssistantMessage("done")),
		]);
		await harness.session.prompt("work through the steps");
		const file = harness.session.sessionFile!;
		expect(fileEntries(file).filter((entry) => entry.type === "custom_message")).toHaveLength(1);
		expect(carried).toEqual([0, 0, 1, 1]);
		expect(harness.eventsOfType("agent_settled")).toHaveLength(1);
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
	});
});

describe("oh-my-pi#10311: a nextTurn message delivered while the answer streams is never persisted", () => {
	it("oh-my-pi#10311: a nextTurn message from a running tool and one on the idle session are handled alike: listed, unsaved, carried once by the next prompt and then saved; one still waiting when the session closes is handed back by dispose(), not dropped", async () => {
		let api: ExtensionAPI | undefined;
		const job = (text: string) => ({ customType: "job", content: text, display: true });
		const startJob: AgentTool = {
			name: "start_job",
			label: "start_job",
			description: "starts a background job",
			parameters: { type: "object" },
			execute: async () => {
				await api!.sendMessage(job("job 1 finished"), { deliverAs: "nextTurn" });
				return { content: [{ type: "text", text: "job started" }], details: {} };
			},
		};
		h = await createHarness({
			persistence: "disk",
			tools: [startJob],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					api = pi;
				},
			],
		});
		const harness = h;
		const carried: string[][] = [];
		const reply =
			(answer: ReturnType<typeof fauxAssistantMessage>): FauxResponseStep =>
			(context: Context) => {
				carried.push(
					context.messages.flatMap((message) =>
						message.role === "user" && JSON.stringify(message.content).includes("finished")
							? [JSON.stringify(message.content).includes("job 1") ? "job 1" : "job 2"]
							: [],
					),
				);
				return answer;
			};
		harness.setResponses([
			reply(fauxAssistantMessage([fauxToolCall("start_job", {})], { stopReason: "toolUse" })),
			reply(fauxAssistantMessage("started")),
			reply(fauxAssistantMessage("noted both")),
		]);
		const file = harness.session.sessionFile!;
		const saved = () =>
			fileEntries(file)
				.filter((entry) => entry.type === "custom_message")
				.map((entry) => (entry as { content?: string }).content);
		await harness.session.prompt("start the job");
		await api!.sendMessage(job("job 2 finished"), { deliverAs: "nextTurn" });
		// Sent while streaming or idle: both wait alike, listed, in no request and not in the file.
		expect(harness.session.getNextTurnMessages().map((message) => message.content)).toEqual([
			"job 1 finished",
			"job 2 finished",
		]);
		expect(saved()).toEqual([]);
		await harness.session.prompt("what happened?");
		expect(carried).toEqual([[], [], ["job 1", "job 2"]]);
		expect(saved()).toEqual(["job 1 finished", "job 2 finished"]);
		expect(harness.session.getNextTurnMessages()).toEqual([]);
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
		// One still waiting when the session closes: handed back to the host, not silently gone.
		await api!.sendMessage(job("job 3 finished"), { deliverAs: "nextTurn" });
		expect(harness.session.dispose().map((message) => message.content)).toEqual(["job 3 finished"]);
		expect(saved()).toEqual(["job 1 finished", "job 2 finished"]);
	});
});
