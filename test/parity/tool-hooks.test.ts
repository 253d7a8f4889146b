/**
 * The per-call tool pipeline through the session (behavior F.3–F.5) compared with pi 0.73.1: what
 * the `tool_call` and `tool_result` hooks see and decide, the error results of calls that never
 * execute (unknown tool, invalid arguments, a `length` stop, a block, a throwing hook), and the
 * order of hooks, executions and results in a parallel batch.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { encodeImage } from "../tools/image-resize-helpers.js";
import { eventPayloads, observe } from "./normalize.js";
import { onBothPeers, type Peer, type SharedTool } from "./peers.js";

const TOOL_EVENTS = ["tool_execution_start", "tool_execution_end"];

/** The peer of each product while its scenario runs (a tool reaches its own session through it). */
const peers: Partial<Record<string, Peer>> = {};

/** A custom tool: `key: "boom"` throws; every execution is logged. */
function lookupTool(log: string[]): SharedTool {
	return {
		name: "lookup",
		label: "Lookup",
		description: "Looks a key up",
		parameters: {
			type: "object",
			properties: { key: { type: "string" }, count: { type: "number" } },
			required: ["key"],
		},
		async execute(id, params) {
			log.push(`execute ${id} ${JSON.stringify(params)}`);
			if (params.key === "boom") throw new Error("lookup exploded");
			return { content: [{ type: "text", text: `value of ${String(params.key)}` }], details: { key: params.key } };
		},
	};
}

/** The toolResult messages of the session file: what the model and a reopened session see. */
function storedResults(peer: Peer) {
	return peer.fileEntries().flatMap((entry) => {
		const message = entry.message as Record<string, unknown> | undefined;
		if (entry.type !== "message" || message?.role !== "toolResult") return [];
		return [
			{ toolCallId: message.toolCallId, content: message.content, details: message.details, isError: message.isError },
		];
	});
}

/** The text of a stored result's first block. */
function firstText(result: { content: unknown } | undefined): string | undefined {
	const content = result?.content;
	return Array.isArray(content) ? (content[0] as { text?: string } | undefined)?.text : undefined;
}

type Call = { id: string; name: string; args: Record<string, unknown> };

async function runBatch(peer: Peer, log: string[], calls: Call[], stopReason?: "length") {
	peer.script([{ toolCalls: calls, ...(stopReason ? { stopReason } : {}) }, { text: "Done." }]);
	await peer.prompt("go");
	await peer.quiesce();
	return {
		...observe(peer),
		tools: eventPayloads(peer.recorded, TOOL_EVENTS),
		results: storedResults(peer),
		log,
	};
}

/** An extension that logs each call's `tool_call` and `tool_result` by id. */
const logToolHooks =
	(log: string[]) =>
	(api: ExtensionAPI): void => {
		api.on("tool_call", (event) => void log.push(`tool_call ${event.toolCallId}`));
		api.on("tool_result", (event) => void log.push(`tool_result ${event.toolCallId}`));
	};

/**
 * One batch of `calls` on both peers, each with its own log: the extension `hooks(log)` and the
 * tool `tool(log)` (default {@link lookupTool}); with `onError`, extension errors are logged too.
 */
function runHookedBatch(
	hooks: (log: string[]) => (api: ExtensionAPI) => void,
	calls: Call[],
	options: { onError?: true; stopReason?: "length"; tool?: (log: string[]) => SharedTool } = {},
) {
	const logs: Record<string, string[]> = { pi: [], settle: [] };
	const log = (name: string) => logs[name] ?? [];
	return onBothPeers(
		(name) => ({
			extensions: [hooks(log(name))],
			customTools: [(options.tool ?? lookupTool)(log(name))],
			...(options.onError ? { onError: (error) => log(name).push(`onError ${error.event}: ${error.error}`) } : {}),
		}),
		(peer) => runBatch(peer, log(peer.name), calls, options.stopReason),
	);
}

describe("parity: the tool-call pipeline through the session (F.3–F.5)", () => {
	it("tool_call: an Error blocks with its message, a thrown string with pi's wrapper text, {block} with the default reason; blocked calls never execute nor reach tool_result", async () => {
		const hooks =
			(log: string[]) =>
			(api: ExtensionAPI): void => {
				api.on("tool_call", (event) => {
					log.push(`tool_call ${event.toolCallId} ${JSON.stringify(event.input)}`);
					const key = (event.input as Record<string, unknown>).key;
					if (key === "error") throw new Error("refused by policy");
					if (key === "string") throw "plain string";
					if (key === "block") return { block: true };
					if (key === "reason") return { block: true, reason: "not today" };
					return undefined;
				});
				api.on("tool_result", (event) => {
					log.push(`tool_result ${event.toolCallId} isError ${event.isError}`);
					return undefined;
				});
			};
		const { pi, settle } = await runHookedBatch(
			hooks,
			[
				{ id: "c1", name: "lookup", args: { key: "error" } },
				{ id: "c2", name: "lookup", args: { key: "string" } },
				{ id: "c3", name: "lookup", args: { key: "block" } },
				{ id: "c4", name: "lookup", args: { key: "reason" } },
				{ id: "c5", name: "lookup", args: { key: "fine" } },
			],
			{ onError: true },
		);
		expect(pi.results.map(firstText)).toEqual([
			"refused by policy",
			"Extension failed, blocking execution: plain string",
			"Tool execution was blocked",
			"not today",
			"value of fine",
		]);
		expect(pi.log.filter((line) => line.startsWith("execute") || line.startsWith("tool_result"))).toEqual([
			'execute c5 {"key":"fine"}',
			"tool_result c5 isError false",
		]);
		expect(settle).toEqual(pi);
	});

	it("an unknown tool and invalid arguments are error results before any tool_call hook; valid calls still run", async () => {
		const hooks =
			(log: string[]) =>
			(api: ExtensionAPI): void => {
				api.on("tool_call", (event) => void log.push(`tool_call ${event.toolCallId}`));
			};
		const { pi, settle } = await runHookedBatch(hooks, [
			{ id: "c1", name: "nope", args: { key: "x" } },
			{ id: "c2", name: "lookup", args: { count: 2 } },
			{ id: "c3", name: "lookup", args: { key: "ok" } },
		]);
		expect(firstText(pi.results[0])).toBe("Tool nope not found");
		expect(pi.results[1]?.isError).toBe(true);
		expect(pi.log).toEqual(["tool_call c3", 'execute c3 {"key":"ok"}']);
		expect(settle).toEqual(pi);
	});

	// A named difference (README "Coming from pi"): Settle follows newer pi (pi#6944's text) and
	// executes no call of a reply cut at the output token limit, whose arguments may be truncated;
	// pi 0.73.1 still executes them. Pinned on both sides.
	it("a length stop: Settle executes none of its calls (each gets newer pi's text, no hook runs), pi 0.73.1 executes them; both ask the model again", async () => {
		const { pi, settle } = await runHookedBatch(
			logToolHooks,
			[
				{ id: "c1", name: "lookup", args: { key: "a" } },
				{ id: "c2", name: "lookup", args: { key: "b" } },
			],
			{ stopReason: "length" },
		);
		const texts = (run: typeof pi) => run.results.map(firstText);
		expect(pi.log).toEqual([
			"tool_call c1",
			"tool_call c2",
			'execute c1 {"key":"a"}',
			'execute c2 {"key":"b"}',
			"tool_result c1",
			"tool_result c2",
		]);
		expect(texts(pi)).toEqual(["value of a", "value of b"]);
		expect(settle.log).toEqual([]);
		const skipped = (name: string) =>
			`Tool call "${name}" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.`;
		expect(texts(settle)).toEqual([skipped("lookup"), skipped("lookup")]);
		expect(settle.results.map((result) => result.isError)).toEqual([true, true]);
		// Settle finalizes the skipped calls one by one (a length stop makes the batch sequential, F.5);
		// pi 0.73.1 runs them as a parallel batch. Otherwise the same turn, and a second request.
		const toolPart = (events: string[]) =>
			events.filter((event) => event.startsWith("tool_execution") || event.includes("(toolResult)"));
		expect(toolPart(settle.events)).toEqual([
			"tool_execution_start",
			"tool_execution_end",
			"message_start(toolResult)",
			"message_end(toolResult)",
			"tool_execution_start",
			"tool_execution_end",
			"message_start(toolResult)",
			"message_end(toolResult)",
		]);
		const rest = (events: string[]) => events.filter((event) => !toolPart([event]).length);
		expect(rest(settle.events)).toEqual(rest(pi.events));
		expect(settle.file).toEqual(pi.file);
		expect(pi.requests).toHaveLength(2);
		expect(settle.requests).toHaveLength(2);
	});

	it("tool_result sees a throwing execution as an error and overrides field by field; the stored result is the override", async () => {
		const hooks =
			(log: string[]) =>
			(api: ExtensionAPI): void => {
				api.on("tool_result", (event) => {
					const text = event.content.map((block) => (block.type === "text" ? block.text : "")).join("");
					log.push(`tool_result ${event.toolCallId} isError ${event.isError}: ${text}`);
					if (event.toolCallId === "c1")
						return { isError: false, content: [{ type: "text", text: `recovered: ${text}` }] };
					if (event.toolCallId === "c2") return { details: { audited: true } };
					return undefined;
				});
				// A second handler sees the first one's override (the chain).
				api.on("tool_result", (event) => {
					log.push(`second handler ${event.toolCallId} isError ${event.isError}`);
					return undefined;
				});
			};
		const { pi, settle } = await runHookedBatch(hooks, [
			{ id: "c1", name: "lookup", args: { key: "boom" } },
			{ id: "c2", name: "lookup", args: { key: "calm" } },
		]);
		expect(pi.results).toEqual([
			{
				toolCallId: "c1",
				content: [{ type: "text", text: "recovered: lookup exploded" }],
				details: {},
				isError: false,
			},
			{
				toolCallId: "c2",
				content: [{ type: "text", text: "value of calm" }],
				details: { audited: true },
				isError: false,
			},
		]);
		expect(settle).toEqual(pi);
	});

	it("a tool's image over 2000 px: Settle saves and sends it resized with the dimension note (newer pi), pi 0.73.1 as the tool made it; a small image and everything else match", async () => {
		const big = encodeImage("png", 2400, 600, 7, 0).toString("base64");
		const small = encodeImage("png", 64, 32, 7, 0).toString("base64");
		const shotTool = (log: string[]): SharedTool => ({
			name: "shot",
			label: "Shot",
			description: "Takes a screenshot",
			parameters: { type: "object", properties: { size: { type: "string" } }, required: ["size"] },
			async execute(id, params) {
				log.push(`execute ${id}`);
				const data = params.size === "big" ? big : small;
				return { content: [{ type: "image", data, mimeType: "image/png" }], details: { size: params.size } };
			},
		});
		const { pi, settle } = await runHookedBatch(
			logToolHooks,
			[
				{ id: "c1", name: "shot", args: { size: "small" } },
				{ id: "c2", name: "shot", args: { size: "big" } },
			],
			{ tool: shotTool },
		);
		const png = (data: string) => ({ type: "image", data, mimeType: "image/png" });
		expect(pi.results.map((result) => result.content)).toEqual([[png(small)], [png(big)]]);
		const [resized, note] = settle.results[1]!.content as [{ type: string; data: string }, { text: string }];
		expect(settle.results[0]!.content).toEqual([png(small)]);
		expect(resized.type).toBe("image");
		expect(resized.data).not.toBe(big);
		expect(note.text).toBe(
			"[Image: original 2400x600, displayed at 2000x500. Multiply coordinates by 1.20 to map to original image.]",
		);
		// The named difference undone (resized bytes → the tool's, the note left out), the rest —
		// events, hooks, requests, details — is the same.
		const undo = (value: unknown): unknown => {
			if (typeof value === "string") return value === resized.data ? big : value.replace(`\n${note.text}`, "");
			if (Array.isArray(value))
				return value.filter((item) => (item as { text?: string } | null)?.text !== note.text).map(undo);
			if (value && typeof value === "object")
				return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, undo(item)]));
			return value;
		};
		expect(undo(settle)).toEqual(pi);
	});

	it("a parallel batch runs every tool_call hook (source order) before any execution, and stores results in source order", async () => {
		const { pi, settle } = await runHookedBatch(logToolHooks, [
			{ id: "c1", name: "lookup", args: { key: "a" } },
			{ id: "c2", name: "lookup", args: { key: "b" } },
			{ id: "c3", name: "lookup", args: { key: "c" } },
		]);
		expect(pi.log.slice(0, 3)).toEqual(["tool_call c1", "tool_call c2", "tool_call c3"]);
		expect(pi.results.map((result) => result.toolCallId)).toEqual(["c1", "c2", "c3"]);
		expect(settle).toEqual(pi);
	});
	// A named difference (README "Coming from pi"), pinned on both sides.
	it("tool_execution_update is forwarded only while execute is pending: an update sent after it resolved (during the next model call) is dropped; pi 0.73.1 forwards it after tool_execution_end", async () => {
		const stashed: Record<string, ((text: string) => void) | undefined> = {};
		const progressTool = (name: string): SharedTool => ({
			name: "progress",
			label: "Progress",
			description: "Reports progress",
			parameters: { type: "object", properties: {} },
			async execute(_id, _params, _signal, onUpdate) {
				onUpdate?.({ content: [{ type: "text", text: "halfway" }], details: {} });
				stashed[name] = (text) => onUpdate?.({ content: [{ type: "text", text }], details: {} });
				return { content: [{ type: "text", text: "done" }], details: {} };
			},
		});
		const { pi, settle } = await onBothPeers(
			(name) => ({ customTools: [progressTool(name)] }),
			async (peer) => {
				peer.script([
					{ toolCalls: [{ id: "c1", name: "progress", args: {} }] },
					async () => {
						// The run is still active: the model is being asked again.
						stashed[peer.name]?.("too late");
						await peer.drainEvents();
						return { text: "Done." };
					},
				]);
				await peer.prompt("go");
				await peer.quiesce();
				return {
					updates: peer.recorded.flatMap((r) =>
						r.kind === "event" && r.event.type === "tool_execution_update"
							? [JSON.stringify((r.event.partialResult as { content: unknown }).content)]
							: [],
					),
					events: observe(peer).events,
				};
			},
		);
		// pi 0.73.1 forwards it: a tool_execution_update after the call's tool_execution_end, inside the
		// next turn (and, sent after the run ended, an unhandled rejection "Agent listener invoked
		// outside active run"). Settle drops it as newer pi does (F.5). Otherwise the same run.
		expect(pi.updates).toEqual(['[{"type":"text","text":"halfway"}]', '[{"type":"text","text":"too late"}]']);
		expect(pi.events.lastIndexOf("tool_execution_update")).toBeGreaterThan(pi.events.indexOf("tool_execution_end"));
		expect(settle.updates).toEqual(['[{"type":"text","text":"halfway"}]']);
		const withoutLateUpdate = [...pi.events];
		withoutLateUpdate.splice(pi.events.lastIndexOf("tool_execution_update"), 1);
		expect(settle.events).toEqual(withoutLateUpdate);
	});
	it("a tool returning terminate: true on every call of the batch ends the turn without another model call; one call without it goes on", async () => {
		const finalTool: SharedTool = {
			name: "final",
			label: "Final",
			description: "Ends the turn",
			parameters: { type: "object", properties: { stop: { type: "boolean" } } },
			async execute(_id, params) {
				return {
					content: [{ type: "text", text: params.stop ? "stopping" : "going on" }],
					details: {},
					...(params.stop ? { terminate: true } : {}),
				} as Awaited<ReturnType<SharedTool["execute"]>>;
			},
		};
		const { pi, settle } = await onBothPeers({ customTools: [finalTool] }, async (peer) => {
			peer.script([
				{
					toolCalls: [
						{ id: "c1", name: "final", args: { stop: true } },
						{ id: "c2", name: "final", args: { stop: true } },
					],
				},
				{
					toolCalls: [
						{ id: "c3", name: "final", args: { stop: true } },
						{ id: "c4", name: "final", args: { stop: false } },
					],
				},
				{ text: "Done." },
			]);
			await peer.prompt("stop now");
			const afterFirst = peer.requests.length;
			await peer.prompt("mixed");
			await peer.quiesce();
			return { afterFirst, ...observe(peer), results: storedResults(peer) };
		});
		expect(pi.afterFirst).toBe(1);
		expect(pi.requests).toHaveLength(3);
		expect(settle).toEqual(pi);
	});

	// A named difference (README "Coming from pi"): pi 0.73.1's session drops a tool_call handler's
	// terminate (its blocked result never has it); Settle keeps it, as newer pi does (F.4).
	it("tool_call {block, terminate} on every call: Settle ends the turn; pi 0.73.1 asks the model again", async () => {
		const hooks = (api: ExtensionAPI): void => {
			api.on("tool_call", (event) => ({ block: true, reason: `${event.toolCallId} stops here`, terminate: true }));
		};
		const { pi, settle } = await onBothPeers({ extensions: [hooks], customTools: [lookupTool([])] }, async (peer) => {
			peer.script([
				{
					toolCalls: [
						{ id: "c1", name: "lookup", args: { key: "a" } },
						{ id: "c2", name: "lookup", args: { key: "b" } },
					],
				},
				{ text: "Asked again." },
			]);
			await peer.prompt("go");
			await peer.quiesce();
			return { requests: peer.requests.length, results: storedResults(peer).map(firstText) };
		});
		expect(pi).toEqual({ requests: 2, results: ["c1 stops here", "c2 stops here"] });
		expect(settle).toEqual({ requests: 1, results: ["c1 stops here", "c2 stops here"] });
	});
	it("a tool_result handler that throws is reported (onError) and skipped: the result stands, later handlers still run", async () => {
		const hooks =
			(log: string[]) =>
			(api: ExtensionAPI): void => {
				api.on("tool_result", (event) => {
					log.push(`first ${event.toolCallId}`);
					if (event.toolCallId === "c1") throw new Error("audit failed");
					return { content: [{ type: "text", text: "first rewrote it" }] };
				});
				api.on("tool_result", (event) => {
					const text = event.content.map((block) => (block.type === "text" ? block.text : "")).join("");
					log.push(`second ${event.toolCallId}: ${text}`);
					return undefined;
				});
			};
		const { pi, settle } = await runHookedBatch(
			hooks,
			[
				{ id: "c1", name: "lookup", args: { key: "a" } },
				{ id: "c2", name: "lookup", args: { key: "b" } },
			],
			{ onError: true },
		);
		expect(pi.results.map(firstText)).toEqual(["value of a", "first rewrote it"]);
		// The two calls' hook chains run concurrently (a parallel batch): how they interleave is
		// microtask timing, so each call's chain is compared on its own.
		const perCall = (run: typeof pi) => ({
			c1: run.log.filter((line) => line.includes("c1") || line.startsWith("onError")),
			c2: run.log.filter((line) => line.includes("c2")),
		});
		expect(perCall(pi).c1).toEqual([
			'execute c1 {"key":"a"}',
			"first c1",
			"onError tool_result: audit failed",
			"second c1: value of a",
		]);
		expect(perCall(settle)).toEqual(perCall(pi));
		expect({ ...settle, log: [] }).toEqual({ ...pi, log: [] });
	});
	// A named difference (README "Coming from pi"), pinned on both sides.
	it("a sequential batch aborted while its first call runs: Settle dispatches none of the remaining calls, pi 0.73.1 starts each with an aborted signal", async () => {
		const logs: Record<string, string[]> = { pi: [], settle: [] };
		const slowTool = (log: string[], started: () => void): SharedTool => ({
			name: "slow",
			label: "Slow",
			description: "Waits for the abort",
			parameters: { type: "object", properties: {} },
			executionMode: "sequential",
			execute(id, _params, signal) {
				log.push(`execute ${id}`);
				started();
				return new Promise((_resolve, reject) => {
					const stop = () => reject(new Error(`${id} stopped`));
					if (signal?.aborted) stop();
					else signal?.addEventListener("abort", stop, { once: true });
				});
			},
		});
		const { pi, settle } = await onBothPeers(
			(name) => ({
				customTools: [
					slowTool(logs[name] ?? [], () => {
						// Once the call is running (its start event delivered), as a user's Ctrl+C would.
						setImmediate(() => void peers[name]?.session.abort());
					}),
				],
			}),
			async (peer) => {
				peers[peer.name] = peer;
				peer.script([
					{
						toolCalls: [
							{ id: "c1", name: "slow", args: {} },
							{ id: "c2", name: "slow", args: {} },
							{ id: "c3", name: "slow", args: {} },
						],
					},
					{ text: "not asked" },
				]);
				await peer.prompt("go");
				await peer.quiesce();
				return { log: logs[peer.name], results: storedResults(peer).map(firstText), file: observe(peer).file };
			},
		);
		// pi 0.73.1 still starts c2 and c3, with the run's signal already aborted: a tool that only
		// listens for the abort event then never ends, and neither does pi's abort(). Settle starts
		// neither, as newer pi does (F.5); each gets "Operation aborted". The file has the same shape.
		expect(pi.log).toEqual(["execute c1", "execute c2", "execute c3"]);
		expect(pi.results).toEqual(["c1 stopped", "c2 stopped", "c3 stopped"]);
		expect(settle.log).toEqual(["execute c1"]);
		expect(settle.results).toEqual(["c1 stopped", "Operation aborted", "Operation aborted"]);
		expect(settle.file).toEqual(pi.file);
	});
});
