/**
 * Regression: a run that threw (the Agent's `prompt()` / `continue()` rejected: `RUN_FAILED`) settled
 * the operation and resolved `prompt()`, so the error reached nobody. pi's C.2 lets it escape after
 * the `finally`: the operation settles (one `agent_settled`), then `prompt()` rejects with it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

let h: Harness;
afterEach(() => h?.cleanup());

describe("a run that throws", () => {
	it("settles once, then prompt() rejects with the thrown error; the session stays usable", async () => {
		h = await createHarness();
		h.setResponses([fauxAssistantMessage("after the failure")]);
		const realPrompt = h.session.agent.prompt.bind(h.session.agent);
		h.session.agent.prompt = async () => {
			throw new Error("agent exploded");
		};

		const failure = await h.session.prompt("start").then(
			() => undefined,
			(error: unknown) => error,
		);

		expect(failure).toBeInstanceOf(SettleError);
		expect(failure).toMatchObject({ code: "INTERNAL", message: "agent exploded" });
		expect((failure as SettleError).cause).toBeInstanceOf(Error);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.lifecycle).toBe("idle");
		expect(h.session.isStreaming).toBe(false);

		h.session.agent.prompt = realPrompt;
		await h.session.prompt("again");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "after the failure" }] });
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
	});

	it("a SettleError from the run reaches the caller unchanged", async () => {
		h = await createHarness();
		const thrown = new SettleError("BUSY", "Agent is already processing.");
		h.session.agent.prompt = async () => {
			throw thrown;
		};
		await expect(h.session.prompt("start")).rejects.toBe(thrown);
	});

	it("an extension's prompt whose run throws reports through onError", async () => {
		let send: ((text: string) => void) | undefined;
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => {
					send = (text) => pi.sendUserMessage(text);
				},
			],
		});
		h.session.agent.prompt = async () => {
			throw new Error("agent exploded");
		};
		const settled = h.nextEvent("agent_settled");
		send!("from the extension");
		await settled;
		await h.session.waitForIdle();
		await new Promise((resolve) => setImmediate(resolve));
		expect(h.extensionErrors.map((entry) => entry.error)).toEqual(["agent exploded"]);
	});
});
