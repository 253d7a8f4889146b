import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { runnerWith, withoutStacks } from "./helpers.js";

describe("dispatch order and snapshots", () => {
	it("runs extensions in load order and each extension's handlers in registration order", async () => {
		const seen: string[] = [];
		const { runner } = await runnerWith(
			(pi) => {
				pi.on("agent_start", () => void seen.push("a1"));
				pi.on("agent_start", () => void seen.push("a2"));
			},
			(pi) => pi.on("agent_start", () => void seen.push("b1")),
		);
		await runner.emit({ type: "agent_start" });
		expect(seen).toEqual(["a1", "a2", "b1"]);
	});

	it("keeps load order when an earlier extension registers a handler after a later one did", async () => {
		const seen: string[] = [];
		let first: ExtensionAPI | undefined;
		const { runner } = await runnerWith(
			(pi) => {
				first = pi;
			},
			(pi) => pi.on("turn_start", () => void seen.push("second")),
		);
		first!.on("turn_start", () => void seen.push("first"));
		await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 1 });
		expect(seen).toEqual(["first", "second"]);
	});

	it("awaits async handlers one after another", async () => {
		const seen: string[] = [];
		const { runner } = await runnerWith(
			(pi) =>
				pi.on("agent_end", async () => {
					await new Promise((resolve) => setImmediate(resolve));
					seen.push("slow");
				}),
			(pi) => pi.on("agent_end", () => void seen.push("fast")),
		);
		await runner.emit({ type: "agent_end", messages: [] });
		expect(seen).toEqual(["slow", "fast"]);
	});

	it("applies handlers registered during a dispatch from the next dispatch on", async () => {
		const seen: string[] = [];
		const { runner } = await runnerWith((pi) => {
			pi.on("agent_start", () => {
				seen.push("outer");
				pi.on("agent_start", () => void seen.push("inner"));
			});
		});
		await runner.emit({ type: "agent_start" });
		expect(seen).toEqual(["outer"]);
		await runner.emit({ type: "agent_start" });
		expect(seen).toEqual(["outer", "outer", "inner"]);
	});

	it("still runs a handler removed during the dispatch, and self-removal does not skip the next handler", async () => {
		const seen: string[] = [];
		const off: Array<() => void> = [];
		const { runner } = await runnerWith((pi) => {
			off[0] = pi.on("agent_start", () => {
				seen.push("h0");
				off[0]!(); // itself
				off[2]!(); // a later neighbour
			});
			off[1] = pi.on("agent_start", () => void seen.push("h1"));
			off[2] = pi.on("agent_start", () => void seen.push("h2"));
		});
		await runner.emit({ type: "agent_start" });
		expect(seen).toEqual(["h0", "h1", "h2"]);
		await runner.emit({ type: "agent_start" });
		expect(seen).toEqual(["h0", "h1", "h2", "h1"]);
	});

	it("removes exactly one registration per unsubscribe when the same function is registered twice", async () => {
		let calls = 0;
		const handler = () => {
			calls++;
		};
		const { runner } = await runnerWith((pi) => {
			const off = pi.on("agent_start", handler);
			pi.on("agent_start", handler);
			off();
			off();
		});
		await runner.emit({ type: "agent_start" });
		expect(calls).toBe(1);
	});

	it("reports whether an event has handlers, tracking registrations and removals", async () => {
		let off: (() => void) | undefined;
		const { runner } = await runnerWith((pi) => {
			off = pi.on("message_update", () => {});
		});
		expect(runner.hasHandlers("message_update")).toBe(true);
		expect(runner.hasHandlers("message_end")).toBe(false);
		off!();
		expect(runner.hasHandlers("message_update")).toBe(false);
	});
});

describe("error isolation", () => {
	it("reports a throwing handler with path, event, message and stack, and continues the dispatch", async () => {
		const seen: string[] = [];
		const { runner, errors } = await runnerWith(
			(pi) =>
				pi.on("turn_start", () => {
					throw new Error("boom");
				}),
			(pi) =>
				pi.on("turn_start", async () => {
					throw "plain string";
				}),
			(pi) => pi.on("turn_start", () => void seen.push("third ran")),
		);
		await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
		expect(seen).toEqual(["third ran"]);
		expect(withoutStacks(errors)).toEqual([
			{ extensionPath: "<inline:1>", event: "turn_start", error: "boom" },
			{ extensionPath: "<inline:2>", event: "turn_start", error: "plain string" },
		]);
		expect(errors[0]!.stack).toContain("boom");
		expect(errors[1]!.stack).toBeUndefined();
	});

	it("keeps dispatching and notifying other listeners when an error listener throws", async () => {
		const { runner, errors } = await runnerWith((pi) =>
			pi.on("agent_start", () => {
				throw new Error("x");
			}),
		);
		const second: string[] = [];
		runner.onError(() => {
			throw new Error("listener broke");
		});
		runner.onError((error) => second.push(error.error));
		await expect(runner.emit({ type: "agent_start" })).resolves.toBeUndefined();
		expect(errors).toHaveLength(1);
		expect(second).toEqual(["x"]);
	});

	it("stops reporting to a listener after it unsubscribes", async () => {
		const { runner } = await runnerWith((pi) =>
			pi.on("agent_start", () => {
				throw new Error("x");
			}),
		);
		const seen: string[] = [];
		const off = runner.onError((error) => seen.push(error.error));
		await runner.emit({ type: "agent_start" });
		off();
		await runner.emit({ type: "agent_start" });
		expect(seen).toEqual(["x"]);
	});
});

describe("emit", () => {
	it("returns undefined for notification events whatever handlers return", async () => {
		const { runner } = await runnerWith((pi) => pi.on("session_start", () => ({ cancel: true }) as never));
		expect(await runner.emit({ type: "session_start", reason: "startup" })).toBeUndefined();
	});

	it("for session_before_* returns the last result that sets a field and stops at the first cancel", async () => {
		const seen: string[] = [];
		const { runner } = await runnerWith(
			(pi) =>
				pi.on("session_before_fork", () => {
					seen.push("a");
					return { skipConversationRestore: true };
				}),
			(pi) =>
				pi.on("session_before_fork", () => {
					seen.push("b");
					return undefined;
				}),
		);
		expect(await runner.emit({ type: "session_before_fork", entryId: "e1", position: "before" })).toEqual({
			skipConversationRestore: true,
		});
		expect(seen).toEqual(["a", "b"]);

		// A later `{}` sets nothing, so it does not replace the earlier decision (pi-goal-list-loop-audit#56).
		const empty = await runnerWith(
			(pi) => pi.on("session_before_fork", () => ({ skipConversationRestore: true })),
			(pi) => pi.on("session_before_fork", () => ({})),
		);
		expect(await empty.runner.emit({ type: "session_before_fork", entryId: "e1", position: "before" })).toEqual({
			skipConversationRestore: true,
		});

		const cancelling = await runnerWith(
			(pi) => pi.on("session_before_switch", () => ({ cancel: false })),
			(pi) => pi.on("session_before_switch", () => ({ cancel: true })),
			(pi) =>
				pi.on("session_before_switch", () => {
					seen.push("not reached");
					return undefined;
				}),
		);
		expect(await cancelling.runner.emit({ type: "session_before_switch", reason: "new" })).toEqual({ cancel: true });
		expect(seen).not.toContain("not reached");
	});

	it("passes the event and a context to handlers", async () => {
		const received: unknown[] = [];
		const { runner } = await runnerWith((pi) =>
			pi.on("model_select", (event, ctx) => {
				received.push(event, ctx.cwd, ctx.hasUI, ctx.mode, ctx.isIdle());
			}),
		);
		const model = { id: "m", provider: "p" } as never;
		const event = { type: "model_select", model, previousModel: undefined, source: "set" } as const;
		await runner.emit(event);
		expect(received[0]).toBe(event);
		expect(received.slice(1)).toEqual([expect.any(String), false, "print", true]);
	});
});
