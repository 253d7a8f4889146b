/**
 * Reports about a session that says it is idle (or busy) when it is not, replayed against Settle:
 * a steer sent while only a user `!` command runs (gajae-code#4739), and a manual compaction whose
 * `session_compact` handler is still running (pi-powerline-footer#198). What the user should see:
 * `isIdle` and what `prompt()` accepts agree, and an accepted message is answered without a
 * later, unrelated interaction.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { gate, script, timesPersisted, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("gajae-code#4739: a steer accepted while a user bash command runs is never delivered", () => {
	it("gajae-code#4739: steer() while only a `!` command runs is answered once, and the command's output joins the log", async () => {
		h = await createHarness({ persistence: "disk" });
		const harness = h;
		const { answerRequests } = script(harness, [
			fauxAssistantMessage("hello"),
			fauxAssistantMessage("answered the steer"),
			fauxAssistantMessage("spare"),
		]);
		await harness.session.prompt("hi");
		const fifo = join(harness.session.sessionManager.getCwd(), "release.fifo");
		execFileSync("mkfifo", [fifo]);
		let started!: () => void;
		const running = new Promise<void>((resolve) => (started = resolve));
		const bash = harness.session.executeBash(`echo started; read line < ${fifo}; echo "got $line"`, (chunk) => {
			if (chunk.includes("started")) started();
		});
		await running;
		expect(harness.session.isStreaming).toBe(false);
		const outcome = await harness.session.steer("also check the logs").then(
			() => "accepted",
			(error: unknown) => (error instanceof SettleError ? error.code : String(error)),
		);
		// The command ends (a real process reading its FIFO), then everything settles.
		execFileSync("sh", ["-c", `echo go > ${fifo}`]);
		expect(await bash).toMatchObject({ exitCode: 0, cancelled: false });
		await harness.session.waitForIdle();
		expect(harness.session.getSteeringMessages()).toEqual([]);
		expect(harness.session.isIdle).toBe(true);
		if (outcome === "accepted") {
			expect(answerRequests.filter((request) => userTexts(request).includes("also check the logs"))).toHaveLength(1);
			expect(timesPersisted(harness.session.sessionFile!, "also check the logs")).toBe(1);
		} else {
			expect(outcome).toBe("BUSY");
		}
		expect(harness.session.messages.some((m) => m.role === "bashExecution")).toBe(true);
	});
});

describe("pi-powerline-footer#198: a message sent during a manual compaction stays queued after it", () => {
	it("pi-powerline-footer#198: while session_compact handlers still run, isIdle is false and prompt() is refused with BUSY; once they end, waitForIdle resolves and a prompt is answered", async () => {
		const handlerRunning = gate();
		const releaseHandler = gate();
		let idleSeenByHandler: boolean | undefined;
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_compact", async (_event, ctx) => {
						idleSeenByHandler = ctx.isIdle();
						handlerRunning.release();
						await releaseHandler.promise;
					});
				},
			],
		});
		const harness = h;
		const { answerRequests } = script(harness, [
			fauxAssistantMessage("one"),
			fauxAssistantMessage("two"),
			fauxAssistantMessage("answer after the compaction"),
		]);
		await harness.session.prompt("a");
		await harness.session.prompt("b");
		const compacted = harness.session.compact();
		await handlerRunning.promise;
		// The compaction is written, its handler still runs: the session says busy, and acts busy.
		expect(idleSeenByHandler).toBe(false);
		expect(harness.session.isIdle).toBe(false);
		const refused = await harness.session.prompt("sent too early").then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(refused).toBeInstanceOf(SettleError);
		expect(refused).toMatchObject({ code: "BUSY" });
		let idle = false;
		const waited = harness.session.waitForIdle().then(() => {
			idle = true;
		});
		await Promise.resolve();
		expect(idle).toBe(false);
		releaseHandler.release();
		await compacted;
		await waited;
		expect(harness.session.isIdle).toBe(true);
		await harness.session.prompt("sent when idle");
		expect(userTexts(answerRequests.at(-1)!).at(-1)).toBe("sent when idle");
		expect(timesPersisted(harness.session.sessionFile!, "sent too early")).toBe(0);
	});
});
