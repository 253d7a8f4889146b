/**
 * pi-web#923, pi-subagents#10: a host reading pi's event stream (`--mode json`, an SSE relay) more
 * slowly than it is produced: every `message_update` carries the answer so far, so a long answer's
 * events come to hundreds of MB, and what the reader had not taken yet piled up in the producer's
 * memory without bound (a stalled client's backlog, an OOM). Here a real `settle --rpc` streams a
 * long answer from a local OpenAI-compatible server to a client that stops reading its stdout pipe
 * for 2 s: no line is lost, the events arrive in order, and settle's memory stops growing while
 * nobody reads (its run waits for the pipe to drain).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-rpc-slow-reader-");
const server = useWireServer();

/** Resident memory of process `pid` in MB (Linux /proc). */
function residentMb(pid: number): number {
	const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
	return Number(match?.[1]) / 1024;
}

/** The reader's pause: what a slow host does, not a wait for settle. */
const PAUSE_MS = 2000;
const SAMPLE_MS = 100;

describe("pi-web#923, pi-subagents#10: a slow reader of the event stream", () => {
	it("pi-web#923: settle --rpc streams a 400 kB answer (hundreds of MB of message_update lines) to a client that stops reading for 2 s: every delta arrives once and in order, the run ends, and settle's memory stays flat while the pipe is full", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		// 400 pieces of 1000 characters, each numbered: the stream splits each in two deltas.
		const pieces = Array.from({ length: 400 }, (_, i) => `${String(i).padStart(5, "0")}${"x".repeat(995)}`);
		server.reply(chatReply(pieces.map((text) => ({ type: "text" as const, text }))));
		const client = new RpcClient(["--model", "local/coder", "--no-session"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		let bytes = 0;
		client.child.stdout.on("data", (chunk: Buffer) => {
			bytes += chunk.length;
		});
		await client.request({ id: "ready", type: "get_state" });
		const pid = client.child.pid!;
		const before = residentMb(pid);

		const firstUpdate = client.next((line) => line.type === "message_update");
		client.send({ id: "long", type: "prompt", message: "write it all" });
		await firstUpdate;
		client.child.stdout.pause();
		const samples: { at: number; mb: number }[] = [];
		const start = Date.now();
		while (Date.now() - start < PAUSE_MS) {
			samples.push({ at: Date.now() - start, mb: residentMb(pid) });
			await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
		}
		const settled = client.next((line) => line.type === "agent_settled");
		client.child.stdout.resume();
		await settled;
		expect(await client.end()).toBe(0);

		const types = client.lines.map((line) => line.type);
		const deltas = client.lines.flatMap((line) => {
			const event = line.assistantMessageEvent as { type: string; delta?: string } | undefined;
			return line.type === "message_update" && event?.type === "text_delta" ? [event.delta ?? ""] : [];
		});
		expect(deltas).toHaveLength(pieces.length * 2);
		expect(deltas.join("")).toBe(pieces.join(""));
		const lastUpdate = types.lastIndexOf("message_update");
		expect(types.indexOf("agent_start")).toBeLessThan(types.indexOf("message_update"));
		expect(types.indexOf("agent_end", lastUpdate)).toBeGreaterThan(lastUpdate);
		expect(types.indexOf("agent_settled")).toBeGreaterThan(types.indexOf("agent_end", lastUpdate));
		// The events are far larger than any memory settle used: they were not queued in it.
		expect(bytes).toBeGreaterThan(300 * 1024 * 1024);
		// While nobody read, settle held still: flat over the pause's second half, and bounded.
		const late = samples.filter((sample) => sample.at >= PAUSE_MS / 2).map((sample) => sample.mb);
		expect(Math.max(...late) - Math.min(...late)).toBeLessThan(16);
		expect(Math.max(...samples.map((sample) => sample.mb)) - before).toBeLessThan(256);
	}, 120_000);
});
