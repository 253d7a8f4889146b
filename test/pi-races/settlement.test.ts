/**
 * pi (and pi-fork) race reports about continuation and settlement — messages an extension sends
 * from `tool_call`, `turn_end`, `agent_end` and `agent_settled` (or from outside any handler while
 * `agent_end` handlers still run, pi-subagents#928), a steer taken for a turn that is
 * aborted, input during a manual compaction — replayed against Settle through its public API on a
 * real session file. What the user sees: every message delivered exactly once, where it belongs in
 * the transcript; a turn only when one was asked for; one `agent_settled` per operation.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { echo } from "../session/helpers.js";
import {
	comparable,
	fileEntries,
	gate,
	persistedRoles,
	reopenedContext,
	script,
	timesPersisted,
	userTexts,
} from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

/**
 * Sets `h` to a disk harness with two extensions: the first holds its first `agent_end` (post-run
 * work that keeps the run from settling: the reports' window) until `releaseAgentEnd`; the second's
 * `pi` (`sender`) sends from outside any handler meanwhile. `inAgentEnd` resolves once the hold began.
 */
async function harnessWithAgentEndHeld(): Promise<{
	inAgentEnd: ReturnType<typeof gate>;
	releaseAgentEnd: ReturnType<typeof gate>;
	sender: ExtensionAPI;
}> {
	const inAgentEnd = gate();
	const releaseAgentEnd = gate();
	let sender: ExtensionAPI | undefined;
	let holding = false;
	h = await createHarness({
		persistence: "disk",
		extensionFactories: [
			(pi: ExtensionAPI) => {
				pi.on("agent_end", async () => {
					if (holding) return;
					holding = true;
					inAgentEnd.release();
					await releaseAgentEnd.promise;
				});
			},
			(pi: ExtensionAPI) => {
				sender = pi;
			},
		],
	});
	if (!sender) throw new Error("the sending extension was not loaded");
	return { inAgentEnd, releaseAgentEnd, sender };
}

const toolTurn = () => fauxAssistantMessage([fauxToolCall("echo", { n: 1 })], { stopReason: "toolUse" });

describe("PrimeIntellect-ai/prime-agent#444: steering and follow-ups queued from agent_end are stranded", () => {
	for (const deliverAs of ["followUp", "steer"] as const) {
		it(`prime-agent#444: pi.sendUserMessage(…, { deliverAs: "${deliverAs}" }) from agent_end is answered in the same operation`, async () => {
			let sent = false;
			h = await createHarness({
				persistence: "disk",
				extensionFactories: [
					(pi: ExtensionAPI) => {
						pi.on("agent_end", () => {
							if (sent) return;
							sent = true;
							pi.sendUserMessage("heartbeat: keep going", { deliverAs });
						});
					},
				],
			});
			const { answerRequests } = script(h, [fauxAssistantMessage("first"), fauxAssistantMessage("kept going")]);
			await h.session.prompt("task");
			expect(h.extensionErrors).toEqual([]);
			expect(answerRequests.map((request) => userTexts(request).at(-1))).toEqual(["task", "heartbeat: keep going"]);
			expect(h.eventsOfType("agent_settled")).toHaveLength(1);
			expect(h.session.pendingMessageCount).toBe(0);
			expect(timesPersisted(h.session.sessionFile!, "heartbeat: keep going")).toBe(1);
			expect(h.session.isIdle).toBe(true);
		});
	}
});

describe("pi-subagents#928: a steering inbox sends between agent_end and agent_settled; pi refuses it “Agent is already processing”", () => {
	for (const deliverAs of ["steer", "followUp"] as const) {
		it(`pi-subagents#928: pi.sendUserMessage(…, { deliverAs: "${deliverAs}" }) from outside any handler while another extension's agent_end handler still runs is answered once in the same operation, no extension error`, async () => {
			// The steering inbox sends when a request arrives, not from an event handler.
			const held = await harnessWithAgentEndHeld();
			const { answerRequests } = script(h, [fauxAssistantMessage("first"), fauxAssistantMessage("steered")]);
			const done = h.session.prompt("task");
			await held.inAgentEnd.promise;
			// The window: the run has ended (extensions hear agent_end first), nothing has settled.
			expect(h.eventsOfType("agent_settled")).toHaveLength(0);
			held.sender.sendUserMessage("inbox request", { deliverAs });
			held.releaseAgentEnd.release();
			await done;
			await h.session.waitForIdle();
			await h.session.waitForExtensionRuns();
			expect(h.extensionErrors).toEqual([]);
			expect(answerRequests.map((request) => userTexts(request).at(-1))).toEqual(["task", "inbox request"]);
			expect(h.eventsOfType("agent_settled")).toHaveLength(1);
			expect(h.session.pendingMessageCount).toBe(0);
			expect(timesPersisted(h.session.sessionFile!, "inbox request")).toBe(1);
			expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
			expect(h.session.isIdle).toBe(true);
		});
	}
});

describe("remote_pi#62: a mesh message sent with sendMessage({ triggerTurn }) while agent_end handlers still run; pi threw “Agent is already processing a prompt”", () => {
	it("remote_pi#62: two pi.sendMessage(…, { triggerTurn: true }) from outside any handler while another extension's agent_end handler still runs: no error, each delivered once and answered in the same operation, one agent_settled", async () => {
		// The mesh bridge: envelopes arrive from another process, not from an event handler.
		const held = await harnessWithAgentEndHeld();
		const { answerRequests } = script(h, [
			fauxAssistantMessage("first"),
			fauxAssistantMessage("handled envelope 1"),
			fauxAssistantMessage("handled envelope 2"),
		]);
		const done = h.session.prompt("task");
		await held.inAgentEnd.promise;
		expect(h.eventsOfType("agent_settled")).toHaveLength(0);
		const sends = [1, 2].map((n) =>
			held.sender.sendMessage({ customType: "mesh", content: `envelope ${n}`, display: true }, { triggerTurn: true }),
		);
		held.releaseAgentEnd.release();
		await Promise.all([done, ...sends]);
		await h.session.waitForIdle();
		await h.session.waitForExtensionRuns();
		expect(h.extensionErrors).toEqual([]);
		// Delivered as steers, one per turn (the default one-at-a-time mode).
		expect(answerRequests.map((request) => userTexts(request).at(-1))).toEqual(["task", "envelope 1", "envelope 2"]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(persistedRoles(h.session.sessionFile!)).toEqual([
			"user",
			"assistant",
			"custom:mesh",
			"assistant",
			"custom:mesh",
			"assistant",
		]);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
		expect(h.session.isIdle).toBe(true);
	});
});

describe("plannotator#843 / pi: sendUserMessage from agent_settled (the session just became idle)", () => {
	it("plannotator#843: pi.sendUserMessage() with no deliverAs from agent_settled starts the next operation after this one settled", async () => {
		let sent = false;
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("agent_settled", (_event, ctx) => {
						if (sent) return;
						sent = true;
						expect(ctx.isIdle()).toBe(true);
						pi.sendUserMessage("Continue with the approved plan.");
					});
				},
			],
		});
		const { answerRequests } = script(h, [fauxAssistantMessage("plan approved"), fauxAssistantMessage("executing")]);
		await h.session.prompt("make a plan");
		await h.session.waitForIdle();
		expect(h.extensionErrors).toEqual([]);
		expect(answerRequests.map((request) => userTexts(request).at(-1))).toEqual([
			"make a plan",
			"Continue with the approved plan.",
		]);
		// Two operations, each settled once, the second after the first.
		const types = h.events
			.map((event) => event.type)
			.filter((type) => type === "agent_start" || type === "agent_settled");
		expect(types).toEqual(["agent_start", "agent_settled", "agent_start", "agent_settled"]);
	});
});

describe("pi#4577: pi.sendMessage({ triggerTurn: false }) from turn_end starts another assistant turn", () => {
	it("pi#4577: a checkpoint message sent from turn_end is persisted and starts no turn", async () => {
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("turn_end", () => {
						pi.sendMessage(
							{ customType: "checkpoint", content: "checkpoint created", display: true },
							{ triggerTurn: false },
						);
					});
				},
			],
		});
		const { answerRequests } = script(h, [fauxAssistantMessage("Hi!"), fauxAssistantMessage("Checkpoint noted.")]);
		await h.session.prompt("hello");
		expect(answerRequests).toHaveLength(1);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "custom", customType: "checkpoint" });
		expect(persistedRoles(h.session.sessionFile!)).toEqual(["user", "assistant", "custom:checkpoint"]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.extensionErrors).toEqual([]);
	});
});

describe("pi#8166 / pi#3537: a custom message sent mid tool batch lands between toolCall and toolResult", () => {
	it("pi#8166: sendMessage({ triggerTurn: false }) from a tool_call handler is persisted after the tool results, and the next request pairs them", async () => {
		h = await createHarness({
			persistence: "disk",
			tools: [echo],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("tool_call", () => {
						pi.sendMessage(
							{ customType: "steering-preference", content: "prefer small diffs", display: false },
							{ triggerTurn: false },
						);
					});
				},
			],
		});
		const { answerRequests } = script(h, [toolTurn(), fauxAssistantMessage("done"), fauxAssistantMessage("next")]);
		await h.session.prompt("go");
		await h.session.prompt("again");
		const roles = persistedRoles(h.session.sessionFile!);
		expect(roles.slice(0, 3)).toEqual(["user", "assistant", "toolResult"]);
		expect(roles.indexOf("custom:steering-preference")).toBeGreaterThan(roles.indexOf("toolResult"));
		// Every request: each tool result directly follows the assistant message that called it.
		for (const request of answerRequests) {
			request.messages.forEach((message, index) => {
				if (message.role === "toolResult") expect(request.messages[index - 1]?.role).toBe("assistant");
			});
		}
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

describe("openclaw#128008: a steer taken for the next turn is lost when the run aborts before it is injected", () => {
	it("openclaw#128008: a steer typed during a tool batch, then abort at turn_end: persisted exactly once or still listed, never both or neither", async () => {
		const toolRunning = gate();
		const releaseTool = gate();
		const slow: AgentTool = {
			...echo,
			name: "slow",
			execute: async () => {
				toolRunning.release();
				await releaseTool.promise;
				return { content: [{ type: "text", text: "slow done" }], details: {} };
			},
		};
		let abort: Promise<void> | undefined;
		h = await createHarness({
			persistence: "disk",
			tools: [slow],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("turn_end", () => {
						// Ctrl+C lands while the turn_end listeners run (persistence among them).
						abort ??= h.session.abort();
					});
				},
			],
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage([fauxToolCall("slow", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("never asked"),
			fauxAssistantMessage("answer to the next prompt"),
		]);
		const done = h.session.prompt("run the tools");
		await toolRunning.promise;
		await h.session.steer("stop and use the other file");
		releaseTool.release();
		await done;
		await abort;
		const persisted = timesPersisted(h.session.sessionFile!, "stop and use the other file");
		const listed = h.session.getSteeringMessages().filter((text) => text === "stop and use the other file").length;
		expect(persisted + listed).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		// The next prompt: the steer reaches the model exactly once, either from the log or from the queue.
		await h.session.prompt("next");
		const last = answerRequests.at(-1)!;
		expect(userTexts(last).filter((text) => text === "stop and use the other file")).toHaveLength(1);
		expect(timesPersisted(h.session.sessionFile!, "stop and use the other file")).toBe(1);
		expect(h.session.pendingMessageCount).toBe(0);
	});
});

describe('pi#8687: sendUserMessage(…, { deliverAs: "followUp" }) throws "already processing" during an active run', () => {
	it("pi#8687: a follow-up an extension sends from tool_call while the run streams is queued and answered once", async () => {
		let sent = false;
		h = await createHarness({
			persistence: "disk",
			tools: [echo],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("tool_call", () => {
						if (sent) return;
						sent = true;
						pi.sendUserMessage("inbox: a new message arrived", { deliverAs: "followUp" });
					});
				},
			],
		});
		const { answerRequests } = script(h, [toolTurn(), fauxAssistantMessage("done"), fauxAssistantMessage("read it")]);
		await h.session.prompt("work");
		expect(h.extensionErrors).toEqual([]);
		expect(answerRequests).toHaveLength(3);
		expect(userTexts(answerRequests[2]!).at(-1)).toBe("inbox: a new message arrived");
		expect(timesPersisted(h.session.sessionFile!, "inbox: a new message arrived")).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});
});

describe("oh-my-pi#3485 / pi#8435: input while a manual /compact aborts the turn and compacts", () => {
	it("oh-my-pi#3485: a steer typed while compact() tears the running turn down is kept exactly once (taken by the aborted turn or listed), never dropped", async () => {
		const releaseTool = gate();
		const toolRunning = gate();
		const slow: AgentTool = {
			...echo,
			name: "slow",
			execute: async (_id, _params, signal) => {
				toolRunning.release();
				await Promise.race([
					releaseTool.promise,
					new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve())),
				]);
				return { content: [{ type: "text", text: "stopped" }], details: {} };
			},
		};
		h = await createHarness({ persistence: "disk", tools: [slow], settings: { compaction: { keepRecentTokens: 1 } } });
		const { answerRequests } = script(h, [
			fauxAssistantMessage("earlier answer"),
			fauxAssistantMessage([fauxToolCall("slow", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("answer after compaction"),
		]);
		await h.session.prompt("earlier");
		const run = h.session.prompt("long task");
		await toolRunning.promise;
		const compacted = h.session.compact();
		// Typed in the teardown window (the chat passes its streamingBehavior).
		let disposition: string | undefined;
		const typed = h.session
			.prompt("steer typed while /compact starts", {
				streamingBehavior: "steer",
				preflightResult: (result) => {
					disposition = result;
				},
			})
			.catch((error: unknown) => error);
		await run;
		await compacted;
		const outcome = await typed;
		if (outcome instanceof SettleError) {
			// Refused loudly (BUSY), nothing queued: the caller still has the text.
			expect(outcome.code).toBe("BUSY");
			expect(h.session.getSteeringMessages()).toEqual([]);
			return;
		}
		expect(disposition).toBe("queued");
		// Accepted: the aborted turn took it (persisted) or it waits listed — exactly one of the two.
		const text = "steer typed while /compact starts";
		const listed = h.session.getSteeringMessages().filter((queued) => queued === text).length;
		expect(timesPersisted(h.session.sessionFile!, text) + listed).toBe(1);
		expect(h.eventsOfType("compaction_end").at(-1)).toMatchObject({ reason: "manual", aborted: false });
		await h.session.prompt("after");
		expect(h.session.getSteeringMessages()).toEqual([]);
		expect(
			userTexts(answerRequests.at(-1)!).filter((text) => text === "steer typed while /compact starts"),
		).toHaveLength(1);
		expect(timesPersisted(h.session.sessionFile!, "steer typed while /compact starts")).toBe(1);
	});

	it("pi#8435: an extension's sendUserMessage during a manual compaction is refused with a typed error it hears, not lost silently", async () => {
		const compaction = gate();
		let api: ExtensionAPI | undefined;
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					api = pi;
					pi.on("session_before_compact", async () => {
						await compaction.promise;
						return undefined;
					});
				},
			],
		});
		script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two"), fauxAssistantMessage("three")]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		const compacted = h.session.compact();
		await h.nextEvent("compaction_start");
		expect(h.session.isCompacting).toBe(true);
		// Awaitable from the session API: the caller learns at once.
		const refusal = await h.session.sendUserMessage("scheduled task fired", { deliverAs: "followUp" }).catch((e) => e);
		expect(refusal).toBeInstanceOf(SettleError);
		expect(refusal).toMatchObject({ code: "BUSY" });
		// Fire-and-forget from an extension: reported as its extension error.
		api!.sendUserMessage("scheduled task fired (extension)", { deliverAs: "followUp" });
		compaction.release();
		await compacted;
		await h.session.waitForIdle();
		expect(h.extensionErrors.map((error) => error.error)).toEqual([expect.stringMatching(/compact/i)]);
		expect(h.session.pendingMessageCount).toBe(0);
		expect(timesPersisted(h.session.sessionFile!, "scheduled task fired")).toBe(0);
	});
});

describe("pi#9647: session_compact is emitted before the compaction state is cleared; a follow-up sent from it throws", () => {
	for (const how of ["sendUserMessage", "sendUserMessage followUp", "sendMessage triggerTurn"] as const) {
		it(`pi#9647: ${how} from session_compact after a manual compaction resumes the agent right after the compaction: answered once, saved after the compaction entry, no extension error`, async () => {
			h = await createHarness({
				persistence: "disk",
				settings: { compaction: { keepRecentTokens: 10 } },
				extensionFactories: [
					(pi: ExtensionAPI) => {
						pi.on("session_compact", (event) => {
							if (event.reason !== "manual") return;
							if (how === "sendMessage triggerTurn") {
								pi.sendMessage({ customType: "resume", content: "continue", display: true }, { triggerTurn: true });
							} else {
								pi.sendUserMessage(
									"continue",
									how === "sendUserMessage followUp" ? { deliverAs: "followUp" } : undefined,
								);
							}
						});
					},
				],
			});
			const { answerRequests } = script(h, [
				fauxAssistantMessage(`one ${"words ".repeat(40)}`),
				fauxAssistantMessage(`two ${"words ".repeat(40)}`),
				fauxAssistantMessage("continued after the compaction"),
			]);
			await h.session.prompt(`a ${"question ".repeat(30)}`);
			await h.session.prompt(`b ${"question ".repeat(30)}`);
			await h.session.compact();
			await h.session.waitForExtensionRuns();
			expect(h.extensionErrors).toEqual([]);
			expect(answerRequests).toHaveLength(3);
			const resumed = answerRequests[2]!;
			expect(JSON.stringify(resumed.messages.at(-1))).toContain("continue");
			expect(resumed.messages.some((message) => JSON.stringify(message).includes("summary"))).toBe(true);
			const entries = fileEntries(h.session.sessionFile!);
			const compactionAt = entries.findIndex((entry) => entry.type === "compaction");
			const resumedAt = entries.findIndex(
				(entry, index) => index > compactionAt && JSON.stringify(entry).includes('"continue"'),
			);
			expect(resumedAt).toBeGreaterThan(compactionAt);
			expect(entries.filter((entry) => JSON.stringify(entry).includes("continued after the compaction"))).toHaveLength(
				1,
			);
			expect(h.session.pendingMessageCount).toBe(0);
			expect(h.session.isIdle).toBe(true);
		});
	}

	it("pi#9647: after a manual compaction, an extension's send during the NEXT manual compaction's summary is refused with BUSY again (the saved-compaction hold does not outlive its compaction)", async () => {
		const summarizing = gate();
		const releaseSummary = gate();
		let holdSummary = false;
		let api: ExtensionAPI | undefined;
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 10 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					api = pi;
				},
			],
		});
		const { answerRequests } = script(
			h,
			[
				fauxAssistantMessage(`one ${"words ".repeat(40)}`),
				fauxAssistantMessage(`two ${"words ".repeat(40)}`),
				fauxAssistantMessage(`three ${"words ".repeat(40)}`),
				fauxAssistantMessage(`four ${"words ".repeat(40)}`),
			],
			{
				summary: () => {
					if (!holdSummary) return undefined;
					summarizing.release();
					return releaseSummary.promise.then(() => fauxAssistantMessage("## Goal\nsecond summary"));
				},
			},
		);
		await h.session.prompt(`a ${"question ".repeat(30)}`);
		await h.session.prompt(`b ${"question ".repeat(30)}`);
		await h.session.compact();
		await h.session.prompt(`c ${"question ".repeat(30)}`);
		await h.session.prompt(`d ${"question ".repeat(30)}`);
		holdSummary = true;
		const compacted = h.session.compact();
		await summarizing.promise;
		expect(h.session.isCompacting).toBe(true);
		// Not awaited before the release: a send wrongly held for the compaction's end settles only after it.
		const refusal = h.session.sendUserMessage("scheduled task fired", { deliverAs: "followUp" }).then(
			() => "accepted",
			(error: unknown) => error,
		);
		api!.sendUserMessage("scheduled task fired (extension)", { deliverAs: "followUp" });
		releaseSummary.release();
		await compacted;
		await h.session.waitForIdle();
		await h.session.waitForExtensionRuns();
		expect(await refusal).toBeInstanceOf(SettleError);
		expect(await refusal).toMatchObject({ code: "BUSY" });
		expect(h.extensionErrors.map((error) => error.error)).toEqual([expect.stringMatching(/compact/i)]);
		expect(fileEntries(h.session.sessionFile!).filter((entry) => entry.type === "compaction")).toHaveLength(2);
		expect(answerRequests).toHaveLength(4);
		expect(timesPersisted(h.session.sessionFile!, "scheduled task fired")).toBe(0);
		expect(h.session.pendingMessageCount).toBe(0);
		expect(h.session.isIdle).toBe(true);
	});
});

describe("oh-my-pi#1372: a follow-up an extension sends from session_start, then the host's prompt", () => {
	it("oh-my-pi#1372: prompt() right after bindExtensions() gets a typed BUSY, nothing lost; after waitForExtensionRuns() the task runs once", async () => {
		h = await createHarness({
			persistence: "disk",
			bindExtensions: false,
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_start", () => {
						pi.sendUserMessage("Reminder: follow the house rules.", { deliverAs: "followUp" });
					});
				},
			],
		});
		const { answerRequests } = script(h, [fauxAssistantMessage("noted"), fauxAssistantMessage("task done")]);
		await h.session.bindExtensions({});
		const refused = await h.session.prompt("the task").then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(refused).toBeInstanceOf(SettleError);
		expect((refused as SettleError).code).toBe("BUSY");
		await h.session.waitForExtensionRuns();
		await h.session.prompt("the task");
		expect(answerRequests.map((request) => userTexts(request).at(-1))).toEqual([
			"Reminder: follow the house rules.",
			"the task",
		]);
		expect(timesPersisted(h.session.sessionFile!, "the task")).toBe(1);
		expect(timesPersisted(h.session.sessionFile!, "Reminder: follow the house rules.")).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
	});
});
