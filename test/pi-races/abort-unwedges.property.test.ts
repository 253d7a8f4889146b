/**
 * pi#8331 / pi#5778 under interleavings: a turn whose tools are quick, honour the abort, or never
 * return (ignoring it), or whose stream stalls mid-answer, aborted at a random moment chosen by
 * `fc.scheduler`. Whatever the order, the prompt settles with exactly one `agent_settled`, the
 * file holds a result for every tool call, and it reopens to the live context.
 * `SETTLE_PI_RACES_RUNS` scales the number of runs (default 30).
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { type AgentTool, SessionManager } from "../../src/index.js";
import { fauxToolCall } from "../../src/testing/index.js";
import { diskSession, orphanToolMessages, removeTempDirs } from "./disk-harness.js";

const NUM_RUNS = Number(process.env.SETTLE_PI_RACES_RUNS ?? 30);

afterEach(() => removeTempDirs());

type ToolKind = "quick" | "polite" | "hung";

function tools(scheduler: fc.Scheduler): AgentTool[] {
	const result = (text: string) => ({ content: [{ type: "text" as const, text }], details: {} });
	const tool = (name: ToolKind, execute: AgentTool["execute"]): AgentTool => ({
		name,
		label: name,
		description: `${name} tool`,
		parameters: { type: "object", properties: {} } as never,
		execute,
	});
	return [
		tool("quick", () => scheduler.schedule(Promise.resolve(result("quick done")), "quick tool returns")),
		tool(
			"polite",
			(_id, _args, signal) =>
				new Promise((resolve) => {
					if (signal?.aborted) resolve(result("stopped"));
					signal?.addEventListener(
						"abort",
						() => void scheduler.schedule(Promise.resolve(), "polite stops").then(() => resolve(result("stopped"))),
					);
				}),
		),
		tool("hung", () => new Promise(() => {})),
	];
}

describe("abort always un-wedges a turn (property)", () => {
	it("pi#8331 / pi#5778: any tools, a stalled stream, an abort at any moment: one agent_settled, no orphaned tool call", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.scheduler(),
				fc.array(fc.constantFrom<ToolKind>("quick", "polite", "hung"), { minLength: 1, maxLength: 3 }),
				fc.boolean(),
				fc.constantFrom("prompt", "tool_execution_start", "tool_execution_end", "message_update", "turn_end"),
				fc.nat(2),
				async (scheduler, kinds, stallAfterTools, abortAt, nth) => {
					const d = await diskSession({ customTools: tools(scheduler) });
					try {
						const { session: s, provider, clock, events } = d;
						provider.answer(
							provider.toolCallReply(...kinds.map((kind, i) => fauxToolCall(kind, {}, { id: `call-${i}` }))),
						);
						if (!stallAfterTools) provider.answer("all done");
						// With stallAfterTools the next request streams a few words and goes silent.
						void provider.next().then((request) => request.beginText("thinking about it"));
						let settled = false;
						const done = s.prompt("go").finally(() => {
							settled = true;
						});
						// The abort is queued on the scheduler at the nth such event (or at once), so it races the tools.
						let seen = 0;
						let abortQueued = false;
						const queueAbort = (): void => {
							if (abortQueued) return;
							abortQueued = true;
							void scheduler.schedule(Promise.resolve(), `abort at ${abortAt} #${seen}`).then(() => s.abort());
						};
						if (abortAt === "prompt") queueAbort();
						s.subscribe((event) => {
							if (event.type === abortAt && seen++ === nth) queueAbort();
							// Not that many such events: abort at the end of the turn instead.
							if (event.type === "turn_end") queueAbort();
						});
						// Let the scheduler run everything, moving the clock past a tool's grace whenever it waits.
						for (let round = 0; !settled && round < 50; round++) {
							await scheduler.waitAll();
							// The chosen event never came (a hung tool holds the turn): the user aborts now.
							if (round > 0) queueAbort();
							clock.increment(1000);
							await new Promise<void>((resolve) => setImmediate(resolve));
						}
						await done;
						expect(events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
						expect(s.isStreaming).toBe(false);
						const file = s.sessionFile!;
						expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
						const reopened = SessionManager.open(file, undefined, undefined, { readOnly: true });
						expect(reopened.buildSessionContext().messages.map((m) => m.role)).toEqual(s.messages.map((m) => m.role));
					} finally {
						d.cleanup();
					}
				},
			),
			{ numRuns: NUM_RUNS },
		);
	});
});
