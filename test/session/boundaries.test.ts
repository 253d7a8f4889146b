/**
 * The `turn_end` and `agent_before_settle` boundaries (behavior C.8): drafts previewed and
 * committed with `entry_appended`, continuation only on a runnable context, invalid drafts reported.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { BoundaryContextPreview, ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, reopenedContext, roles } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

describe("turn_end boundary", () => {
	it("gets the persisted entry ids, commits drafts (entry_appended each) and may continue the run", async () => {
		const previews: BoundaryContextPreview[] = [];
		let asked = false;
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("turn_end", (event, ctx) => {
						expect(ctx.sessionManager.getEntry(event.messageEntryId)).toMatchObject({ type: "message" });
						if (asked) return undefined;
						asked = true;
						event.entries.push({ type: "custom", customType: "audit", data: { turn: event.turnIndex } });
						previews.push(event.context);
						return {
							entries: [
								...event.entries,
								{ type: "custom_message", customType: "hint", content: "Double-check the answer.", display: false },
							],
							continue: true,
						};
					}),
			],
		});
		h.setResponses([fauxAssistantMessage("first try"), fauxAssistantMessage("checked answer")]);
		await h.session.prompt("question");
		expect(h.eventsOfType("entry_appended").map((event) => event.entry.type)).toEqual(["custom", "custom_message"]);
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "custom", "assistant"]);
		expect(h.faux.callCount).toBe(2);
		expect(h.eventsOfType("agent_start")).toHaveLength(1);
		expect(previews[0]?.canContinue).toBe(false);
		expect(h.extensionErrors).toEqual([]);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("an invalid draft is reported and nothing is committed", async () => {
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("turn_end", () => ({ entries: [{ type: "context_edit", targetId: "nope", replacement: null }] })),
			],
		});
		h.setResponses([fauxAssistantMessage("ok")]);
		await h.session.prompt("hi");
		expect(h.extensionErrors.map((error) => error.error)).toEqual([
			"Invalid boundary entries: entries[0] (context_edit): entry nope is not on the active branch",
		]);
		expect(h.eventsOfType("entry_appended")).toEqual([]);
	});
});

describe("agent_before_settle boundary", () => {
	it("a valid continue runs once more before the single agent_settled", async () => {
		let rounds = 0;
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("agent_before_settle", (event) => {
						expect(event.outcome).toBe("completed");
						if (rounds++ > 0) return undefined;
						return {
							entries: [
								{ type: "custom_message", customType: "todo", content: "One more thing: add a test.", display: true },
							],
							continue: true,
						};
					}),
			],
		});
		h.setResponses([fauxAssistantMessage("done"), fauxAssistantMessage("test added")]);
		await h.session.prompt("implement it");
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "custom", "assistant"]);
		expect(h.eventsOfType("agent_start")).toHaveLength(2);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});

	it("continue without a runnable context is reported and dropped", async () => {
		h = await createHarness({
			extensionFactories: [(pi: ExtensionAPI) => pi.on("agent_before_settle", () => ({ continue: true }))],
		});
		h.setResponses([fauxAssistantMessage("done")]);
		await h.session.prompt("hi");
		expect(h.extensionErrors.map((error) => error.error)).toEqual([
			"agent_before_settle requested continuation without runnable model context",
		]);
		expect(h.faux.callCount).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});

	it("a message a handler sends without triggering a turn joins the context there, so its continue runs with it", async () => {
		let rounds = 0;
		let seenByModel: string[] = [];
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("agent_before_settle", () => {
						if (rounds++ > 0) return undefined;
						pi.sendMessage(
							{ customType: "note", content: "Also update the changelog.", display: true },
							{ triggerTurn: false },
						);
						return { continue: true };
					}),
			],
		});
		h.setResponses([
			fauxAssistantMessage("done"),
			(context) => {
				seenByModel = context.messages.map((message) => message.role);
				return fauxAssistantMessage("changelog updated");
			},
		]);
		await h.session.prompt("implement it");
		expect(h.extensionErrors).toEqual([]);
		expect(h.faux.callCount).toBe(2);
		// Custom messages reach the model as user messages.
		expect(seenByModel).toEqual(["user", "assistant", "user"]);
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "custom", "assistant"]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});
});
