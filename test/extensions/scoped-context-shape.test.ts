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

	it.each(["tool_call", "tool_result", "turn_end", "agent_before_settle"] as const)(
		"%s: what a handler assigns on its ctx is there for that call (read, listed, spread) and gone in the next call's, as on pi's per-event object",
		async (event) => {
			const seen: { before: unknown; after: unknown; listed: boolean; inCtx: boolean; copied: unknown }[] = [];
			let calls = 0;
			const d = await disk.session({
				extensionFactories: [
					(pi) => {
						pi.on(event as "turn_end", (_event, ctx) => {
							const before = (ctx as unknown as Record<string, unknown>).runLabel;
							(ctx as unknown as Record<string, unknown>).runLabel = `call ${++calls}`;
							seen.push({
								before,
								after: (ctx as unknown as Record<string, unknown>).runLabel,
								listed: Object.keys(ctx).includes("runLabel"),
								inCtx: "runLabel" in ctx,
								copied: ({ ...ctx } as Record<string, unknown>).runLabel,
							});
						});
					},
				],
			});
			for (const prompt of ["run it", "run it again"]) {
				d.provider.answer(d.provider.bashCallReply("echo hi", "call-1"), "done");
				await d.session.prompt(prompt);
			}
			expect(seen.length).toBeGreaterThan(1);
			expect(seen.map((call) => call.before)).toEqual(seen.map(() => undefined));
			expect(seen[1]).toEqual({ before: undefined, after: "call 2", listed: true, inCtx: true, copied: "call 2" });
		},
	);
	it.each(["tool_call", "tool_result", "turn_end", "agent_before_settle"] as const)(
		"%s: a handler deletes a name on its ctx, assigned or never assigned, without a TypeError, as on pi's plain object",
		async (event) => {
			const seen: { threw: string | undefined; tmpLeft: boolean }[] = [];
			const d = await disk.session({
				extensionFactories: [
					(pi) => {
						pi.on(event as "turn_end", (_event, ctx) => {
							const own = ctx as unknown as Record<string, unknown>;
							let threw: string | undefined;
							try {
								delete own.scratch;
								own.tmp = 1;
								delete own.tmp;
							} catch (error) {
								threw = String(error);
							}
							seen.push({ threw, tmpLeft: "tmp" in ctx });
						});
					},
				],
			});
			d.provider.answer(d.provider.bashCallReply("echo hi", "call-1"), "done");
			await d.session.prompt("run it");
			expect(seen.length).toBeGreaterThan(0);
			expect(seen[0]).toEqual({ threw: undefined, tmpLeft: false });
		},
	);
});
