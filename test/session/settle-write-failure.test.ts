/**
 * Settling writes what waited for the run to end (a bash result recorded while it streamed). When
 * that write fails (here the session file deleted; a full disk is the same), the operation still
 * settles: `prompt()` fails with the typed error after `agent_settled`, the result stays pending
 * (nothing is half written), and the session stays usable.
 */
import { existsSync, rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { tick } from "./helpers.js";
import { gate, script } from "./recovery-helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

describe("a write that fails while the operation settles", () => {
	it("regression: a bash result flushed into a deleted session file at settle threw in the machine's listener (uncaught) and left the session streaming forever; now prompt() fails with the IO error and the session goes on", async () => {
		const answerGate = gate();
		h = await createHarness({ persistence: "disk" });
		script(h, [() => answerGate.promise.then(() => fauxAssistantMessage("done")), fauxAssistantMessage("next")]);
		const file = h.session.sessionFile!;
		const order: string[] = [];
		h.session.subscribe((event) => {
			// The answer is saved by now; only what settling writes meets the deleted file.
			if (event.type === "agent_end" && existsSync(file)) rmSync(file);
			if (event.type === "agent_settled") order.push("agent_settled");
		});
		const first = h.session.prompt("one").then(
			() => "resolved",
			(error: unknown) => {
				order.push("rejected");
				return error;
			},
		);
		while (!h.session.isStreaming) await tick();
		h.session.recordBashResult("make", { output: "ok", exitCode: 0, cancelled: false, truncated: false });
		answerGate.release();
		let outcome: unknown;
		void first.then((value) => {
			outcome = value;
		});
		for (let i = 0; i < 200 && outcome === undefined; i++) await tick();
		expect(outcome).toBeInstanceOf(SettleError);
		expect(outcome).toMatchObject({ code: "IO", details: { reason: "deleted" } });
		expect(order).toEqual(["agent_settled", "rejected"]);
		expect(h.session.isStreaming).toBe(false);
		expect(h.session.lifecycle).toBe("idle");
		// Not written, so not in the transcript either: it waits, and the next prompt says why it cannot go on.
		expect(h.session.messages.map((message) => message.role)).toEqual(["system", "user", "assistant"]);
		await expect(h.session.prompt("two")).rejects.toMatchObject({ code: "IO", details: { reason: "deleted" } });
		expect(h.session.lifecycle).toBe("idle");
	});
});

describe("a write that fails while settling, then a dispose from the agent_settled listener", () => {
	it("regression: the dispose resolved the prompt whose settle write failed, so the host thought the bash result was saved; now prompt() still fails with the IO error", async () => {
		const answerGate = gate();
		h = await createHarness({ persistence: "disk" });
		script(h, [() => answerGate.promise.then(() => fauxAssistantMessage("done"))]);
		const file = h.session.sessionFile!;
		h.session.subscribe((event) => {
			if (event.type === "agent_end" && existsSync(file)) rmSync(file);
			if (event.type === "agent_settled") void h.session.dispose();
		});
		const first = h.session.prompt("one").then(
			() => "resolved",
			(error: unknown) => error,
		);
		while (!h.session.isStreaming) await tick();
		h.session.recordBashResult("make", { output: "ok", exitCode: 0, cancelled: false, truncated: false });
		answerGate.release();
		const outcome = await first;
		expect(outcome).toBeInstanceOf(SettleError);
		expect(outcome).toMatchObject({ code: "IO", details: { reason: "deleted" } });
	});
});
