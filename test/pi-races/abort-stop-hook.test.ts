/**
 * Reports about Esc while an extension's own work runs after (or beside) the model's, replayed
 * against Settle through its public API on a real session file.
 *
 * - oh-my-pi#6489: Esc after a stop hook (`session_stop`; Settle's `agent_before_settle`, where a
 *   handler may add a message and ask for one more run) had started waited for the hook to give up
 *   on its own: the hook got no signal to stop by. What the user should see: the handler's
 *   `ctx.signal` aborts, `abort()` returns once the handler returns, and nothing runs after it; a
 *   handler that ignores the signal is given the tools' grace (1 s), then left behind with an error
 *   naming it, what it returns late is dropped, and the extensions after it are not run late.
 * - oh-my-pi#11834 (review): a follow-up whose `input` hook still awaited its work when the user
 *   pressed Esc was dispatched anyway once the hook returned, a run the user had just stopped. What
 *   the user should see: `abort()` does not wait for the hook, the message is kept (listed, as any
 *   message queued around an abort), no request follows, and the next prompt delivers it once.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { abortPastGrace, diskSessionsPerTest, fileMessages, holdFirstCall, readEntries } from "./disk-harness.js";
import { comparable, reopenedContext } from "./helpers.js";

const disk = diskSessionsPerTest();

/** A promise with its resolver, for a hook the test holds. */
function gate(): { opened: Promise<void>; open: () => void } {
	let open!: () => void;
	const opened = new Promise<void>((resolve) => {
		open = resolve;
	});
	return { opened, open };
}

/** The text of the file's user and custom messages, in order. */
function sentTexts(file: string): string[] {
	return fileMessages(file)
		.filter((message) => message.role === "user" || message.role === "custom")
		.map((message) =>
			typeof message.content === "string"
				? message.content
				: (message.content as { text?: string }[]).map((part) => part.text ?? "").join(""),
		);
}

/** The text of the file's assistant messages, in order. */
function answers(file: string): string[] {
	return fileMessages(file)
		.filter((message) => message.role === "assistant")
		.map((message) => (message.content as { text?: string }[]).map((part) => part.text ?? "").join(""));
}

const REVIEW = { type: "custom_message" as const, customType: "review", content: "lint failed: fix it", display: true };

describe("oh-my-pi#6489: Esc waits for an in-flight stop hook instead of cancelling it", () => {
	it("oh-my-pi#6489: a reviewing agent_before_settle handler gets a ctx.signal that abort() aborts; abort returns once it stops, no review is saved and no run follows", async () => {
		const reviewDone = gate();
		const reviewing = gate();
		const seen: (boolean | undefined)[] = [];
		const d = await disk.session({
			extensionFactories: [
				(pi) => {
					let calls = 0;
					pi.on("agent_before_settle", async (_event, ctx) => {
						if (calls++ > 0) return; // reviews the first answer only
						// A slow reviewer (a linter, a second model) that stops when told to.
						const signal = ctx.signal;
						seen.push(signal?.aborted);
						reviewing.open();
						const stopped = new Promise<"stopped">((resolve) =>
							signal?.addEventListener("abort", () => resolve("stopped"), { once: true }),
						);
						if ((await Promise.race([reviewDone.opened, stopped])) === "stopped") return;
						return { continue: true, entries: [REVIEW] };
					});
				},
			],
		});
		d.provider.answer("report written");
		const run = d.session.prompt("write the report");
		await reviewing.opened;

		await d.session.abort();
		await run;
		expect(seen).toEqual([false]);
		expect(d.session.isIdle).toBe(true);
		expect(answers(d.session.sessionFile!)).toEqual(["report written"]);
		expect(d.events.filter((event) => event.type === "agent_settled")).toHaveLength(1);
		expect(sentTexts(d.session.sessionFile!)).toEqual(["write the report"]);

		reviewDone.open();
		d.provider.answer("next answer");
		await d.session.prompt("and now the summary");
		expect(answers(d.session.sessionFile!)).toEqual(["report written", "next answer"]);
	});

	it("oh-my-pi#6489: a handler that ignores the abort is left behind after the 1 s grace with an error naming it; what it returns late is not saved and starts no run", async () => {
		await abortLeavesHandlerBehind("agent_before_settle");
	});
});

describe("oh-my-pi#6489: the handlers after one left behind", () => {
	it.each(["agent_before_settle", "turn_end"] as const)(
		"oh-my-pi#6489 (%s): once a handler is left behind after the grace, the extensions after it do not run late for the stopped answer, and the error names only the one that held it",
		async (event) => {
			const hold = holdFirstCall(event, () => {});
			const d = await disk.session({
				extensionFactories: [
					hold.factory,
					(pi) => {
						// A linter that notes each answer it checked in the session file.
						let checked = 0;
						pi.on(event as "turn_end", () => {
							pi.appendEntry("lint", { checked: ++checked });
						});
					},
				],
			});
			const errors = await abortPastGrace(d, hold.holding.opened, hold.held);
			const paths = d.session.extensionRunner.handlerPaths(event);
			expect(paths).toHaveLength(2);
			expect(errors.map((error) => error.extensionPath)).toEqual([paths[0]]);

			// The held handler returns after all: the linter is not run on the answer the user stopped.
			hold.late.open();
			await hold.late.opened;
			await new Promise((resolve) => setImmediate(resolve));
			const lintNotes = () => readEntries(d.session.sessionFile!).filter((entry) => entry.customType === "lint");
			expect(lintNotes()).toEqual([]);

			d.provider.answer("next answer");
			await d.session.prompt("and now the summary");
			expect(answers(d.session.sessionFile!)).toEqual(["report written", "next answer"]);
			expect(lintNotes().map((entry) => entry.data)).toEqual([{ checked: 1 }]);
		},
	);
});

describe("oh-my-pi#6489, at the end of a turn: a turn_end handler that ignores the abort", () => {
	it("oh-my-pi#6489: Esc while a turn_end handler holds the turn: left behind after the 1 s grace with an error naming it; its late review is not saved and no run follows", async () => {
		await abortLeavesHandlerBehind("turn_end");
	});
});

describe("oh-my-pi#6489: the abort watch on turn_end handlers", () => {
	it("oh-my-pi#6489: a run of many turns with a turn_end handler leaves no abort listener behind per turn on the run's ctx.signal", async () => {
		const listeners: number[] = [];
		const d = await disk.session({
			extensionFactories: [
				(pi) => {
					pi.on("turn_end", (_event, ctx) => {
						listeners.push(getEventListeners(ctx.signal!, "abort").length);
						// One more model call for each of the first five turns.
						return listeners.length <= 5 ? { continue: true, entries: [REVIEW] } : undefined;
					});
				},
			],
		});
		d.provider.answer("one", "two", "three", "four", "five", "six");
		await d.session.prompt("keep going");
		expect(answers(d.session.sessionFile!)).toEqual(["one", "two", "three", "four", "five", "six"]);
		expect(listeners).toHaveLength(6);
		expect(new Set(listeners).size).toBe(1);
	});
});

describe("oh-my-pi#11834 (review): a follow-up whose input hook was still running at Esc is dispatched after the abort", () => {
	it("oh-my-pi#11834: abort() returns while the hook runs; once it returns the follow-up is listed, no request follows, and the next prompt delivers it once", async () => {
		const checked = gate();
		const checking = gate();
		const d = await disk.session({
			extensionFactories: [
				(pi) => {
					pi.on("input", async (event) => {
						if (event.text !== "also check the tests") return { action: "continue" };
						checking.open();
						await checked.opened;
						return { action: "transform", text: "also check the tests (checked)" };
					});
				},
			],
		});
		const run = d.session.prompt("write the report");
		(await d.provider.next()).beginText("Writing the");
		const queued = d.session.followUp("also check the tests");
		await checking.opened;

		await d.session.abort();
		await run;
		expect(d.session.isIdle).toBe(true);
		checked.open();
		expect(await queued).toBe("queued");
		expect(d.session.getFollowUpMessages()).toEqual(["also check the tests (checked)"]);
		expect(d.provider.requests).toHaveLength(1);
		expect(d.events.filter((event) => event.type === "agent_settled")).toHaveLength(1);

		d.provider.answer("new answer", "checked them");
		await d.session.prompt("start over");
		expect(d.session.getFollowUpMessages()).toEqual([]);
		expect(sentTexts(d.session.sessionFile!)).toEqual([
			"write the report",
			"start over",
			"also check the tests (checked)",
		]);
		expect(reopenedContext(d.session.sessionFile!).map(comparable)).toEqual(d.session.messages.map(comparable));
	});
});

/**
 * oh-my-pi#6489's replay for one boundary: its handler ignores the abort; it is left behind after
 * the 1 s grace with an error naming it, and what it returns late is not saved and starts no run.
 */
async function abortLeavesHandlerBehind(event: "agent_before_settle" | "turn_end"): Promise<void> {
	const late = gate();
	const reviewing = gate();
	let signal: AbortSignal | undefined;
	const d = await disk.session({
		extensionFactories: [
			(pi) => {
				let calls = 0;
				// Both boundaries take the same handler: one cast picks an overload.
				pi.on(event as "turn_end", async (_event, ctx) => {
					if (calls++ > 0) return; // reviews the first answer (turn) only
					signal = ctx.signal;
					reviewing.open();
					await late.opened;
					return { continue: true, entries: [REVIEW] };
				});
			},
		],
	});
	const errors = await abortPastGrace(d, reviewing.opened, () => signal);
	expect(d.session.isIdle).toBe(true);
	expect(errors).toEqual([
		expect.objectContaining({
			event,
			error: expect.stringContaining(
				`Operation aborted: ${event === "agent_before_settle" ? "an" : "a"} ${event} handler did not return within 1000 ms of the abort`,
			),
		}),
	]);
	expect(errors[0]!.extensionPath).toMatch(/^<inline/);

	// The handler returns after all: its review and its request to go on come too late.
	late.open();
	await late.opened;
	d.provider.answer("next answer");
	await d.session.prompt("and now the summary");
	expect(answers(d.session.sessionFile!)).toEqual(["report written", "next answer"]);
	expect(sentTexts(d.session.sessionFile!)).toEqual(["write the report", "and now the summary"]);
	expect(d.events.filter((event) => event.type === "agent_settled")).toHaveLength(2);
	expect(reopenedContext(d.session.sessionFile!).map(comparable)).toEqual(d.session.messages.map(comparable));
}
