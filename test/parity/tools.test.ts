import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventPayloads, observe } from "./normalize.js";
import { onBothPeers, type Peer, type SharedTool } from "./peers.js";

const TOOL_EVENTS = ["tool_execution_start", "tool_execution_update", "tool_execution_end", "turn_end"];

/**
 * A custom tool registered the same way on both peers. `slow` calls wait until a `fast` call has
 * finished, so in parallel mode completion order differs from source order without any timer.
 */
function orderedTool(): SharedTool {
	let fastDone: () => void = () => {};
	const fastFinished = new Promise<void>((resolve) => (fastDone = resolve));
	return {
		name: "lookup",
		label: "Lookup",
		description: "Looks a key up",
		parameters: {
			type: "object",
			properties: { key: { type: "string" }, speed: { type: "string" } },
			required: ["key", "speed"],
		},
		async execute(_id, params) {
			if (params.speed === "slow") await fastFinished;
			if (params.speed === "fast") fastDone();
			if (params.key === "missing") throw new Error(`no entry for ${String(params.key)}`);
			return { content: [{ type: "text", text: `value of ${String(params.key)}` }], details: { key: params.key } };
		},
	};
}

describe("parity: tool turns", () => {
	it("runs the built-in read on a real file the same way", async () => {
		const { pi, settle } = await onBothPeers({}, async (peer) => {
			writeFileSync(join(peer.dirs.cwd, "notes.txt"), "line one\nline two\n");
			peer.script([
				{ text: "Reading.", toolCalls: [{ id: "call-1", name: "read", args: { path: "notes.txt" } }] },
				{ text: "It has two lines." },
			]);
			await peer.prompt("what is in notes.txt?");
			await peer.quiesce();
			return { ...observe(peer), payloads: eventPayloads(peer.recorded, TOOL_EVENTS) };
		});
		expect(pi.requests[1]?.messages).toContain("toolResult read: line one\nline two\n");
		expect(settle).toEqual(pi);
	});

	it("runs parallel calls with results in source order and executions in completion order", async () => {
		const { pi, settle } = await onBothPeers(
			() => ({ customTools: [orderedTool()] }),
			async (peer) => {
				writeFileSync(join(peer.dirs.cwd, "a.txt"), "alpha\n");
				peer.script([
					{
						toolCalls: [
							{ id: "call-1", name: "lookup", args: { key: "k1", speed: "slow" } },
							{ id: "call-2", name: "read", args: { path: "a.txt" } },
							{ id: "call-3", name: "lookup", args: { key: "k3", speed: "fast" } },
							{ id: "call-4", name: "lookup", args: { key: "missing", speed: "any" } },
						],
					},
					{ text: "Done." },
				]);
				await peer.prompt("look things up");
				await peer.quiesce();
				return { ...observe(peer), payloads: eventPayloads(peer.recorded, TOOL_EVENTS) };
			},
		);
		const ends = pi.payloads.filter((p) => p.type === "tool_execution_end").map((p) => p.toolCallId);
		expect(ends.indexOf("call-3")).toBeLessThan(ends.indexOf("call-1"));
		expect(settle).toEqual(pi);
	});

	// Known divergence (reported, not normalized away in the other scenarios): pi's read passes Node's
	// `ENOENT: no such file or directory, access '<path>'` through; Settle says `File not found: <path>`
	// (src/tools/fs-errors.ts). The spec does not fix the text, so only the shared shape is compared.
	it("reports a missing file from read as an error result naming the path", async () => {
		const { pi, settle } = await onBothPeers({}, async (peer) => {
			peer.script([
				{ toolCalls: [{ id: "call-1", name: "read", args: { path: "absent.txt" } }] },
				{ text: "No file." },
			]);
			await peer.prompt("read absent.txt");
			await peer.quiesce();
			const path = join(peer.dirs.cwd, "absent.txt");
			return {
				events: observe(peer).events,
				results: eventPayloads(peer.recorded, ["tool_execution_end"]).map((end) => ({
					isError: end.isError,
					namesPath: JSON.stringify(end.result).includes(path),
				})),
			};
		});
		expect(pi.results).toEqual([{ isError: true, namesPath: true }]);
		expect(settle).toEqual(pi);
	});

	it("forwards progress updates and delivers a steer sent during the tool after the batch", async () => {
		let current: Peer | undefined;
		const progress: SharedTool = {
			name: "progress",
			label: "Progress",
			description: "Reports progress",
			parameters: { type: "object", properties: { steps: { type: "number" } }, required: ["steps"] },
			async execute(_id, params, _signal, onUpdate) {
				for (let step = 1; step <= Number(params.steps); step++) {
					onUpdate?.({ content: [{ type: "text", text: `step ${step}` }], details: { step } });
				}
				await current?.drainEvents();
				await current?.session.steer("while the tool ran");
				return { content: [{ type: "text", text: "all steps done" }], details: {} };
			},
		};
		const { pi, settle } = await onBothPeers(
			() => ({ customTools: [progress] }),
			async (peer) => {
				current = peer;
				peer.script([
					{ toolCalls: [{ id: "call-1", name: "progress", args: { steps: 2 } }] },
					{ text: "Progress done, steering seen." },
				]);
				await peer.prompt("run progress");
				await peer.quiesce();
				return {
					...observe(peer),
					payloads: eventPayloads(peer.recorded, [...TOOL_EVENTS, "queue_update"]),
				};
			},
		);
		expect(pi.payloads.filter((payload) => payload.type === "tool_execution_update")).toHaveLength(2);
		expect(pi.requests[1]?.messages.slice(-2)).toEqual([
			"toolResult progress: all steps done",
			"user: while the tool ran",
		]);
		expect(settle).toEqual(pi);
	});
});
