/**
 * What the RPC differential (rpc-differential.property.test.ts) found, pinned on both products as
 * real child processes: Settle defects it caught (named `regression: …`, each fails without its
 * fix), and pi 0.73.1 bugs the random sequences steer around (`PI_BUG_*`), shown here on both sides
 * so that the day pi or Settle changes, the steering is revisited.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";
import {
	GATE_COMMAND,
	type Line,
	NOTHING_TO_COMPACT,
	observeSession,
	type Peer,
	readSession,
	startPeers,
} from "./rpc-differential.helpers.js";

const cli = useCliProject("settle-rpc-differential-regressions-");

async function settled(peer: Peer, command: Line): Promise<Line> {
	const ended = peer.client.next((line) => line.type === peer.endEvent);
	const response = await peer.client.request(command);
	await ended;
	return response;
}

async function stop(...peers: Peer[]): Promise<void> {
	for (const peer of peers) peer.client.child.stdin.end();
	await Promise.all(peers.map((peer) => peer.client.exited));
}

describe("settle --rpc: defects the RPC differential found", () => {
	it('regression: set_session_name without a "name" answered "Session name cannot be empty" instead of the typed field error', async () => {
		const { pi, settle } = startPeers(cli.dir, []);
		try {
			expect(await settle.client.request({ id: "1", type: "set_session_name" })).toEqual({
				id: "1",
				type: "response",
				command: "set_session_name",
				success: false,
				error: 'set_session_name: "name" must be a string (it is missing)',
			});
			expect(await settle.client.request({ id: "2", type: "set_session_name", name: 5 })).toMatchObject({
				success: false,
				error: 'set_session_name: "name" must be a string (got 5)',
			});
			// pi fails too, with what its code hits.
			expect(await pi.client.request({ id: "1", type: "set_session_name" })).toMatchObject({
				success: false,
				error: expect.stringContaining("Cannot read properties of undefined"),
			});
		} finally {
			await stop(pi, settle);
		}
	});
});

describe("settle --rpc: the session file a user ends up with", () => {
	it("regression SWITCH_TO_UNWRITTEN_CURRENT_SESSION (seed -2140653696 path 3): switch_session to a missing file twice, then a prompt, wrote model_change and thinking_level_change twice; pi once", async () => {
		const { pi, settle } = startPeers(cli.dir, []);
		try {
			const files: unknown[][] = [];
			for (const peer of [pi, settle]) {
				const path = join(peer.cwd, "missing.jsonl");
				for (const id of ["1", "2"]) {
					expect(await peer.client.request({ id, type: "switch_session", sessionPath: path })).toMatchObject({
						success: true,
						data: { cancelled: false },
					});
				}
				await settled(peer, { id: "3", type: "prompt", message: "hello" });
				const state = (await peer.client.request({ id: "4", type: "get_state" })).data as { sessionFile: string };
				expect(state.sessionFile).toBe(path);
				files.push(observeSession(readSession(path), new Map(), peer.cwd));
			}
			expect(files[1]!.map((entry) => (entry as { type: string }).type)).toEqual([
				"session",
				"model_change",
				"thinking_level_change",
				"message",
				"message",
			]);
			expect(files[1]).toEqual(files[0]);
		} finally {
			await stop(pi, settle);
		}
	});
});

describe("pi 0.73.1 bugs the RPC differential steers around", () => {
	it("PI_BUG_EMPTY_QUEUED_TEXT_STAYS: an empty follow-up is delivered but stays in pi's queue (pendingMessageCount 1 for good); Settle empties it", async () => {
		const { pi, settle } = startPeers(cli.dir, []);
		try {
			for (const peer of [pi, settle]) {
				expect(await peer.client.request({ id: "1", type: "follow_up", message: "" })).toMatchObject({
					success: true,
				});
				await settled(peer, { id: "2", type: "prompt", message: "hello" });
				const messages = (await peer.client.request({ id: "3", type: "get_messages" })).data as {
					messages: { role: string; content: unknown }[];
				};
				// Both delivered the empty follow-up to the model.
				expect(messages.messages.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content))).toEqual([
					JSON.stringify([{ type: "text", text: "hello" }]),
					JSON.stringify([{ type: "text", text: "" }]),
				]);
			}
			const pending = async (peer: Peer) =>
				((await peer.client.request({ id: "4", type: "get_state" })).data as { pendingMessageCount: number })
					.pendingMessageCount;
			expect(await pending(pi)).toBe(1);
			expect(await pending(settle)).toBe(0);
		} finally {
			await stop(pi, settle);
		}
	});

	it("PI_BUG_COMPACT_NOTHING_TO_SUMMARIZE: pi summarizes an empty conversation (a model call and a compaction entry) when every message is kept; Settle refuses", async () => {
		const { pi, settle } = startPeers(cli.dir, []);
		try {
			const piAnswer = await pi.client.request({ id: "1", type: "compact" });
			expect(piAnswer).toMatchObject({
				success: true,
				data: { summary: expect.stringContaining("<conversation>\n\n</conversation>") },
			});
			expect(await settle.client.request({ id: "1", type: "compact" })).toMatchObject({
				success: false,
				error: NOTHING_TO_COMPACT,
			});
		} finally {
			await stop(pi, settle);
		}
	});

	it("PI_BUG_CLONE_UNWRITTEN_FILE: pi cannot clone a session before its first assistant message (it reopens the file it has not written: 'Entry <id> not found'); Settle clones it", async () => {
		const { pi, settle } = startPeers(cli.dir, []);
		try {
			expect(await pi.client.request({ id: "1", type: "clone" })).toMatchObject({
				success: false,
				error: expect.stringMatching(/^Entry \S+ not found$/),
			});
			expect(await settle.client.request({ id: "1", type: "clone" })).toMatchObject({
				success: true,
				data: { cancelled: false },
			});
		} finally {
			await stop(pi, settle);
		}
	});

	it("PI_BUG_LAST_TEXT_MISSING: with no assistant text, pi answers get_last_assistant_text with data {} although its protocol type says text: string | null; Settle sends null", async () => {
		const { pi, settle } = startPeers(cli.dir, []);
		try {
			expect((await pi.client.request({ id: "1", type: "get_last_assistant_text" })).data).toEqual({});
			expect((await settle.client.request({ id: "1", type: "get_last_assistant_text" })).data).toEqual({ text: null });
		} finally {
			await stop(pi, settle);
		}
	});

	it("PI_BUG_FORK_FIRST_MESSAGE_LOSES_PARENT: after a fork at the first user message, pi's new session file has no parentSession (it reopens the branch file it never wrote); Settle's names the file it forked from", async () => {
		const { pi, settle } = startPeers(cli.dir, []);
		try {
			const headers: Line[] = [];
			for (const peer of [pi, settle]) {
				await settled(peer, { id: "1", type: "prompt", message: "first" });
				const before = (await peer.client.request({ id: "2", type: "get_state" })).data as { sessionFile: string };
				const forkable = (await peer.client.request({ id: "3", type: "get_fork_messages" })).data as {
					messages: { entryId: string }[];
				};
				expect(
					await peer.client.request({ id: "4", type: "fork", entryId: forkable.messages[0]!.entryId }),
				).toMatchObject({
					success: true,
					data: { text: "first", cancelled: false },
				});
				await settled(peer, { id: "5", type: "prompt", message: "second" });
				const after = (await peer.client.request({ id: "6", type: "get_state" })).data as { sessionFile: string };
				expect(after.sessionFile).not.toBe(before.sessionFile);
				const header = readSession(after.sessionFile)[0]!;
				headers.push({
					parentSession: header.parentSession === before.sessionFile ? "the forked file" : header.parentSession,
				});
			}
			expect(headers).toEqual([{ parentSession: undefined }, { parentSession: "the forked file" }]);
		} finally {
			await stop(pi, settle);
		}
	});

	it("PI_BUG_FORK_UNWRITTEN_PREFIX_LOST: a fork before a user message whose earlier branch holds a user message but no assistant message leaves pi with an empty session (it reopens the branch file it never wrote, so the earlier message is gone); Settle's forked session keeps it (seed 1004222965 path 41)", async () => {
		const { pi, settle } = startPeers(cli.dir, []);
		try {
			const kept: unknown[] = [];
			for (const peer of [pi, settle]) {
				// A steer queued while idle is delivered with the next prompt, before the model answers:
				// two user messages in a row.
				expect(await peer.client.request({ id: "1", type: "steer", message: "queued" })).toMatchObject({
					success: true,
				});
				await settled(peer, { id: "2", type: "prompt", message: "first" });
				const forkable = (await peer.client.request({ id: "3", type: "get_fork_messages" })).data as {
					messages: { entryId: string; text: string }[];
				};
				expect(forkable.messages.map((m) => m.text)).toEqual(["first", "queued"]);
				expect(
					await peer.client.request({ id: "4", type: "fork", entryId: forkable.messages[1]!.entryId }),
				).toMatchObject({ success: true, data: { text: "queued", cancelled: false } });
				const messages = (await peer.client.request({ id: "5", type: "get_messages" })).data as {
					messages: { role: string; content: unknown }[];
				};
				kept.push(messages.messages.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content)));
			}
			expect(kept).toEqual([[], [JSON.stringify([{ type: "text", text: "first" }])]]);
		} finally {
			await stop(pi, settle);
		}
	});

	it("PI_BUG_COMPACT_DURING_RUN_HIDES_RUN_END: compact sent while a run streams aborts it, but pi has already disconnected from its agent, so the host never sees the run end (no tool_execution_end, no agent_end) and the aborted turn is not written (a tool call without its result stays); Settle streams the run's end, then compacts", async () => {
		const { pi, settle } = startPeers(cli.dir, [
			"first answer",
			{ toolCalls: [{ name: "bash", arguments: { command: GATE_COMMAND } }] },
		]);
		try {
			const seen: Record<string, unknown> = {};
			for (const peer of [pi, settle]) {
				await settled(peer, { id: "1", type: "prompt", message: "first" });
				const toolStarted = peer.client.next((line) => line.type === "tool_execution_start");
				const from = peer.client.lines.length;
				expect(await peer.client.request({ id: "2", type: "prompt", message: "second" })).toMatchObject({
					success: true,
				});
				await toolStarted;
				// compact answers once the aborted run has stopped.
				expect(await peer.client.request({ id: "3", type: "compact" })).toMatchObject({ success: true });
				const types = peer.client.lines.slice(from).map((line) => line.type);
				const messages = (await peer.client.request({ id: "4", type: "get_messages" })).data as {
					messages: { role: string }[];
				};
				seen[peer.name] = {
					toolEnded: types.includes("tool_execution_end"),
					runEnded: types.includes("agent_end"),
					roles: messages.messages.map((m) => m.role).filter((role) => role !== "system"),
				};
			}
			expect(seen).toEqual({
				pi: { toolEnded: false, runEnded: false, roles: ["compactionSummary", "assistant"] },
				settle: {
					toolEnded: true,
					runEnded: true,
					roles: ["compactionSummary", "assistant", "toolResult", "assistant"],
				},
			});
		} finally {
			await stop(pi, settle);
		}
	});
});

describe("settle --rpc: what a `!` command leaves in the response and the session file", () => {
	it("regression: a `bash` command's colors and progress bar (`\\x1b[…m`, lone `\\r`) reached the response and the session file as raw codes; pi leaves codes, `\\r` and other controls out (and glues the bar's frames: Settle shows the last)", async () => {
		const { pi, settle } = startPeers(cli.dir, []);
		// Colors, a bar redrawn with `\r`, a `\r\n` ending and a bell, as a build tool prints them.
		const command =
			"printf '\\033[1;32mok\\033[0m build\\n'; for i in 1 2 3; do printf '\\r[%s] %d%%' \"$i\" $((i*33)); done; printf '\\n'; printf 'done\\r\\n\\a'";
		try {
			const seen: unknown[] = [];
			for (const peer of [pi, settle]) {
				const response = await peer.client.request({ id: "1", type: "bash", command });
				await settled(peer, { id: "2", type: "prompt", message: "hello" });
				const state = (await peer.client.request({ id: "3", type: "get_state" })).data as { sessionFile: string };
				const recorded = readSession(state.sessionFile).flatMap((entry) => {
					const message = entry.message as { role?: string; output?: string } | undefined;
					return entry.type === "message" && message?.role === "bashExecution" ? [message.output] : [];
				});
				seen.push({ response: (response.data as { output: string }).output, recorded });
				if (peer === settle) {
					// Settle keeps what the command printed, codes and frames, in the full-output file.
					const data = response.data as { fullOutputPath?: string };
					expect(readFileSync(data.fullOutputPath ?? "", "utf8")).toContain(
						"\x1b[1;32mok\x1b[0m build\n\r[1] 33%\r[2]",
					);
					rmSync(data.fullOutputPath ?? "", { force: true });
				}
			}
			// pi glues the bar's frames into one line; Settle shows the last frame, as a terminal does (copilot-cli#3191).
			expect(seen).toEqual([
				{ response: "ok build\n[1] 33%[2] 66%[3] 99%\ndone\n", recorded: ["ok build\n[1] 33%[2] 66%[3] 99%\ndone\n"] },
				{ response: "ok build\n[3] 99%\ndone\n", recorded: ["ok build\n[3] 99%\ndone\n"] },
			]);
		} finally {
			await stop(pi, settle);
		}
	});
});
