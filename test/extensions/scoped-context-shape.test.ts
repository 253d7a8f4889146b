/**
 * The `ctx` of a `tool_call`, `tool_result`, `turn_end` or `agent_before_settle` handler is bound to
 * its call (its own `signal`; refused once left behind), yet it must stay the plain object pi hands
 * every handler: its members its own, enumerable, so a handler that spreads it into a helper's
 * options (`{ ...ctx, extra }`) or lists it still gets `ui`, `cwd`, `signal`… Before, the per-call
 * context kept them on a prototype: the spread copy had none (`copy.ui` undefined).
 */
import { describe, expect, it } from "vitest";
import { diskSessionsPerTest } from "../pi-races/disk-harness.js";

const disk = diskSessionsPerTest();

interface Seen {
	keys: string[];
	copyCwd: unknown;
	copyNotify: string;
	copySignalIsOwn: boolean;
}

describe("a per-call handler context is a plain object, as every handler's", () => {
	it.each(["tool_call", "tool_result", "turn_end", "agent_before_settle"] as const)(
		"%s: its members are its own and enumerable: a spread copy has ui, cwd and the call's signal",
		async (event) => {
			const seen: Seen[] = [];
			let startKeys: string[] = [];
			const d = await disk.session({
				extensionFactories: [
					(pi) => {
						pi.on("agent_start", (_event, ctx) => {
							startKeys = Object.keys(ctx).sort();
						});
						pi.on(event as "turn_end", (_event, ctx) => {
							const copy = { ...ctx };
							seen.push({
								keys: Object.keys(ctx).sort(),
								copyCwd: copy.cwd,
								copyNotify: typeof copy.ui?.notify,
								copySignalIsOwn: copy.signal === ctx.signal && ctx.signal !== undefined,
							});
						});
					},
				],
			});
			d.provider.answer(d.provider.bashCallReply("echo hi", "call-1"), "done");
			await d.session.prompt("run it");
			expect(seen.length).toBeGreaterThan(0);
			expect(seen[0]).toEqual({ keys: startKeys, copyCwd: d.dir, copyNotify: "function", copySignalIsOwn: true });
		},
	);
});
