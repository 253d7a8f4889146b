/**
 * Differential: more of pi 0.73.1's example extensions, run unchanged on pi's
 * `createAgentSessionRuntime` and Settle's (test/parity/tree-peers.ts) with the scripted UI of
 * pi-examples-peers.ts, real git and real files in temp folders.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventPayloads, fileShape } from "../parity/normalize.js";
import type { SharedExtension } from "../parity/peers.js";
import type { RuntimePeer } from "../parity/tree-peers.js";
import type { ScriptedUI } from "./pi-examples-peers.js";
import { git, gitRepo, onBothRuntimesWithExamples } from "./pi-examples-runtimes.js";

/** Resolves once the scripted UI has logged a call whose first arguments are `call`, or `until` settles. */
async function logged(ui: ScriptedUI, until: Promise<unknown>, ...call: unknown[]): Promise<void> {
	let settled = false;
	until.then(
		() => (settled = true),
		() => (settled = true),
	);
	const seen = () => ui.log.some((entry) => call.every((part, i) => entry[i] === part));
	while (!seen() && !settled) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * pi 0.73.1 persists messages on an event queue its agent loop does not wait for (see
 * tree-peers.ts), so a `tool_result` handler may still see the user message as the leaf where
 * Settle (awaited bridge) sees the assistant message that made the call. This probe's
 * `tool_call` handler waits for that queue, so both peers run the tools after the call is saved.
 */
function persistedBeforeTools(session: () => unknown): SharedExtension {
	return (api) => api.on("tool_call", () => piEventQueueDrained(session()));
}

/** Resolves once pi 0.73.1's event queue (extension handlers included) is empty; at once for Settle. */
async function piEventQueueDrained(session: unknown): Promise<void> {
	const internals = session as { _agentEventQueue?: Promise<void> };
	let queue: Promise<void> | undefined;
	do {
		queue = internals._agentEventQueue;
		await queue;
	} while (queue !== internals._agentEventQueue);
}

describe("pi examples, differential: runtime", () => {
	it("git-checkpoint.ts: a fork during the run, at a checkpointed entry, restores the code of that turn", async () => {
		let current: RuntimePeer | undefined;
		const { pi, settle } = await onBothRuntimesWithExamples(
			["git-checkpoint.ts"],
			{
				answers: ["Yes, restore code to that point"],
				setup: gitRepo,
				extensions: [persistedBeforeTools(() => current?.session)],
			},
			async (peer, ui) => {
				current = peer;
				let fork: Promise<{ cancelled: boolean }> | undefined;
				peer.script([
					{ toolCalls: [{ id: "w1", name: "write", args: { path: "a.txt", content: "two\n" } }] },
					{ toolCalls: [{ id: "b1", name: "bash", args: { command: "git checkout -- a.txt" } }] },
					async () => {
						// pi runs this turn's turn_start handler (`git stash create`) on that queue too, unawaited:
						// forking meanwhile races its git against the restore's `git stash apply` (seen once under
						// load: the restored change left staged). Both peers fork after the handler has run.
						await piEventQueueDrained(peer.session);
						const entry = peer.session.sessionManager
							.getEntries()
							.find((e) => JSON.stringify(e).includes('"id":"w1"'))!;
						fork = peer.runtime.fork(String(entry.id), { position: "at" });
						await logged(ui, fork, "notify", "Code restored to checkpoint");
						return { text: "Done." };
					},
				]);
				const prompted = await peer.session.prompt("change a.txt, then undo it").then(
					() => "resolved",
					(error: Error) => `rejected: ${error.message}`,
				);
				await peer.quiesce();
				const result = await fork;
				await peer.quiesce();
				return {
					prompted,
					result,
					a: readFileSync(join(peer.dirs.cwd, "a.txt"), "utf8"),
					status: git(peer.dirs.cwd, "status", "--porcelain"),
					ui: ui.log,
					files: peer.sessionFiles().map((file) => fileShape(peer.fileEntries(file))),
					tools: eventPayloads(peer.recorded, ["tool_execution_end"]),
				};
			},
		);
		// The forked file keeps the run up to the checkpointed entry; the agent's `git checkout` is undone.
		expect(pi.a).toBe("two\n");
		expect(pi.status).toBe(" M a.txt\n");
		expect(pi.ui).toEqual([
			["select", "Restore code state?", ["Yes, restore code to that point", "No, keep current code"]],
			["notify", "Code restored to checkpoint", "info"],
		]);
		expect(pi.files[1]).toEqual([
			"session",
			"model_change",
			"thinking_level_change",
			"message:user",
			"message:assistant(toolUse)",
		]);
		// Deliberate: a prompt whose session was disposed before it settled rejects in Settle
		// (SESSION_CLOSED, test/session/abort.test.ts); pi 0.73.1 resolves it as if the run had ended.
		expect(pi.prompted).toBe("resolved");
		expect(settle.prompted).toBe("rejected: The AgentSession was disposed before this prompt settled.");
		settle.prompted = pi.prompted;
		// Deliberate: the fork aborts the old session's run and waits for it to settle, so the old file
		// ends with the aborted answer (test/pi-races/switching.test.ts); pi 0.73.1 forks without
		// aborting, and the old run goes on unsaved.
		expect(settle.files[0]).toEqual([...pi.files[0], "message:assistant(aborted)"]);
		settle.files[0] = pi.files[0];
		expect(settle).toEqual(pi);
	});

	it("rpc-demo.ts: every dialog, status, widget and title call of one session, with real bash", async () => {
		const { pi, settle } = await onBothRuntimesWithExamples(
			["rpc-demo.ts"],
			{ answers: ["Block", "Allow", "some value", "Line 1\nLine 2", false, true] },
			async (peer, ui) => {
				writeFileSync(join(peer.dirs.cwd, "keep.txt"), "kept\n");
				peer.script([
					{
						toolCalls: [
							{ id: "b1", name: "bash", args: { command: "rm -rf keep.txt" } },
							{ id: "b2", name: "bash", args: { command: "echo safe" } },
						],
					},
					{ toolCalls: [{ id: "b3", name: "bash", args: { command: "rm -rf keep.txt" } }] },
					{ text: "Done." },
				]);
				await peer.session.prompt("clean up");
				await peer.quiesce();
				for (const command of ["/rpc-input", "/rpc-editor", "/rpc-prefill"]) await peer.session.prompt(command);
				const results = [await peer.runtime.newSession(), await peer.runtime.newSession()];
				return {
					results,
					kept: existsSync(join(peer.dirs.cwd, "keep.txt")),
					tools: eventPayloads(peer.recorded, ["tool_execution_end"]),
					ui: ui.log,
					sessions: peer.sessionFiles().length,
				};
			},
		);
		expect(pi.results).toEqual([{ cancelled: true }, { cancelled: false }]);
		expect(pi.kept).toBe(false);
		const status = (text: string) => ["setStatus", "rpc-demo", text];
		const started = (title: string) => [
			["setTitle", title],
			["setWidget", "rpc-demo", ["--- RPC Extension UI Demo ---", "Loaded and ready."]],
			status("Turns: 0"),
		];
		const dangerous = ["select", "Dangerous command: rm -rf keep.txt", ["Allow", "Block"]];
		const clear = ["confirm", "Clear session?", "All messages will be lost."];
		expect(pi.ui).toEqual([
			...started("pi RPC Demo"),
			status("Turn 1 running..."),
			dangerous,
			["notify", "Command blocked by user", "warning"],
			status("Turn 1 done"),
			status("Turn 2 running..."),
			dangerous,
			["notify", "Command allowed", "info"],
			status("Turn 2 done"),
			status("Turn 3 running..."),
			status("Turn 3 done"),
			["input", "Enter a value", "type something..."],
			["notify", "You entered: some value", "info"],
			["editor", "Edit some text", "Line 1\nLine 2\nLine 3"],
			["notify", "Editor submitted (2 lines)", "info"],
			["setEditorText", "This text was set by the rpc-demo extension."],
			["notify", "Editor prefilled", "info"],
			clear,
			["notify", "Clear cancelled", "info"],
			clear,
			...started("pi RPC Demo (new session)"),
		]);
		expect(settle).toEqual(pi);
	});

	it("handoff.ts: checks its input, then opens a new session that names its parent and gets the edited prompt", async () => {
		const { pi, settle } = await onBothRuntimesWithExamples(
			["handoff.ts"],
			{ answers: ["Implement it for teams.\nKeep the plan."] },
			async (peer, ui) => {
				await peer.session.prompt("/handoff");
				await peer.session.prompt("/handoff carry on");
				peer.script([{ text: "Plan: add a members table." }]);
				await peer.session.prompt("plan the feature");
				await peer.quiesce();
				const parent = peer.session.sessionFile;
				// The generating loader is a ctx.ui.custom component: the scripted UI answers it with no
				// result (undefined, not the null of a cancel), so the editor opens on it.
				await peer.session.prompt("/handoff now implement this for teams as well");
				await peer.quiesce();
				const files = peer.sessionFiles();
				const header = peer.session.sessionManager.getHeader();
				return {
					ui: ui.log,
					files: files.length,
					parentIsPrevious: header?.parentSession === parent,
					current: peer.session.sessionFile !== parent,
					messages: peer.session.messages.length,
				};
			},
		);
		expect(pi.ui).toEqual([
			["notify", "Usage: /handoff <goal for new thread>", "error"],
			["notify", "No conversation to hand off", "error"],
			["custom", "<component>"],
			["editor", "Edit handoff prompt"],
			["setEditorText", "Implement it for teams.\nKeep the plan."],
			["notify", "Handoff ready. Submit when ready.", "info"],
		]);
		// The new session is not on disk yet (no assistant message), but it names its parent.
		expect(pi).toMatchObject({ files: 1, parentIsPrevious: true, current: true, messages: 0 });
		expect(settle).toEqual(pi);
	});

	it("ssh.ts: with --ssh, the model's read/write/edit/bash run through ssh in the remote folder", async () => {
		// No sshd here: an `ssh` first on PATH runs the command with bash on this machine (the
		// "remote" is a temp folder) and logs it, so the example's own remote commands really run.
		const shim = mkdtempSync(join(tmpdir(), "settle-ssh-shim-"));
		const remote = mkdtempSync(join(tmpdir(), "settle-ssh-remote-"));
		const calls = join(shim, "calls.log");
		writeFileSync(
			join(shim, "ssh"),
			`#!/bin/bash\nprintf '%s\\t%s\\n' "$1" "$2" >> ${JSON.stringify(calls)}\nexec bash -c "$2"\n`,
			{ mode: 0o755 },
		);
		const path = process.env.PATH;
		process.env.PATH = `${shim}:${path}`;
		try {
			const { pi, settle } = await onBothRuntimesWithExamples(
				["ssh.ts"],
				{ flags: new Map([["ssh", `dev@box:${remote}`]]) },
				async (peer, ui) => {
					// Without the flag the tools would act on process.cwd(): stop before any tool runs.
					expect(ui.log.map(([method, text]) => `${method} ${text}`)).toContain(
						`notify SSH mode: dev@box:${remote.replace(/\d{2,}/g, "<n>")}`,
					);
					writeFileSync(calls, "");
					peer.script([
						{ toolCalls: [{ id: "w", name: "write", args: { path: "notes.txt", content: "alpha\nbeta\n" } }] },
						{
							toolCalls: [
								{ id: "e", name: "edit", args: { path: "notes.txt", edits: [{ oldText: "beta", newText: "gamma" }] } },
							],
						},
						{ toolCalls: [{ id: "r", name: "read", args: { path: "notes.txt" } }] },
						{ toolCalls: [{ id: "b", name: "bash", args: { command: "pwd; ls" } }] },
						{ text: "Done remotely." },
					]);
					await peer.session.prompt("work on the remote");
					await peer.quiesce();
					const result = {
						ui: ui.log,
						tools: eventPayloads(peer.recorded, ["tool_execution_end"]),
						notes: readFileSync(join(remote, "notes.txt"), "utf8"),
						ssh: readFileSync(calls, "utf8").replaceAll(remote, "<remote>").split("\n").filter(Boolean),
					};
					rmSync(join(remote, "notes.txt"));
					return result;
				},
			);
			expect(pi.notes).toBe("alpha\ngamma\n");
			expect(pi.ssh).toEqual([
				'dev@box\tmkdir -p "<remote>"',
				'dev@box\techo "YWxwaGEKYmV0YQo=" | base64 -d > "<remote>/notes.txt"',
				'dev@box\ttest -r "<remote>/notes.txt"',
				'dev@box\tcat "<remote>/notes.txt"',
				'dev@box\techo "YWxwaGEKZ2FtbWEK" | base64 -d > "<remote>/notes.txt"',
				'dev@box\ttest -r "<remote>/notes.txt"',
				'dev@box\tfile --mime-type -b "<remote>/notes.txt"',
				'dev@box\tcat "<remote>/notes.txt"',
				'dev@box\tcd "<remote>" && pwd; ls',
			]);
			expect(pi.tools.at(-1)).toMatchObject({ toolName: "bash", result: [{ text: `${remote}\nnotes.txt\n` }] });
			expect(settle).toEqual(pi);
		} finally {
			process.env.PATH = path;
			rmSync(shim, { recursive: true, force: true });
			rmSync(remote, { recursive: true, force: true });
		}
	});

	it("status-line.ts and titlebar-spinner.ts: statuses per turn; the title returns to its base after the run", async () => {
		const { pi, settle } = await onBothRuntimesWithExamples(
			["status-line.ts", "titlebar-spinner.ts"],
			{},
			async (peer, ui) => {
				peer.script([{ toolCalls: [{ id: "b", name: "bash", args: { command: "echo hi" } }] }, { text: "Done." }]);
				await peer.session.prompt("two turns");
				await peer.quiesce();
				// The spinner's frames come from an 80 ms timer: how many a run shows depends on its speed.
				return ui.log.filter(([method, title]) => method !== "setTitle" || !/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /.test(String(title)));
			},
		);
		// As the UI log writes them: numbers of two digits or more as <n> (a checkout folder such as tmp.70H8dMGOdG).
		const base = `π - ${basename(process.cwd())}`.replace(/\d{2,}/g, "<n>");
		expect(pi).toEqual([
			["setStatus", "status-demo", "Ready"],
			["setTitle", base],
			["setStatus", "status-demo", "● Turn 1..."],
			["setStatus", "status-demo", "✓ Turn 1 complete"],
			["setStatus", "status-demo", "● Turn 2..."],
			["setStatus", "status-demo", "✓ Turn 2 complete"],
			["setTitle", base],
		]);
		expect(settle).toEqual(pi);
	});

	it("qna.ts: refuses without a finished assistant reply, then loads the extracted questions into the editor", async () => {
		const { pi, settle } = await onBothRuntimesWithExamples(["qna.ts"], {}, async (peer, ui) => {
			await peer.session.prompt("/qna");
			peer.script([{ text: "", stopReason: "length" }, { text: "Which database? And which region?" }]);
			await peer.session.prompt("ask me things");
			await peer.quiesce();
			await peer.session.prompt("/qna");
			await peer.session.prompt("again");
			await peer.quiesce();
			// The extracting loader is a ctx.ui.custom component; the scripted UI answers it with no result.
			await peer.session.prompt("/qna");
			return ui.log;
		});
		expect(pi).toEqual([
			["notify", "No assistant messages found", "error"],
			["notify", "Last assistant message incomplete (length)", "error"],
			["custom", "<component>"],
			["setEditorText"],
			["notify", "Questions loaded. Edit and submit when ready.", "info"],
		]);
		expect(settle).toEqual(pi);
	});

	it("tools.ts: a tools-config saved on the branch sets the active tools when the tree moves and when resumed", async () => {
		// The example saves the selection from its terminal settings list; this probe writes the same entry.
		const saveTools: SharedExtension = (api) => {
			api.registerCommand("save-tools", {
				description: "save a tools-config entry",
				handler: async (args) => void api.appendEntry("tools-config", { enabledTools: args.trim().split(",") }),
			});
		};
		const { pi, settle } = await onBothRuntimesWithExamples(["tools.ts"], { extensions: [saveTools] }, async (peer) => {
			peer.script([{ text: "One." }, { text: "Two." }, { text: "Three." }]);
			await peer.session.prompt("first");
			await peer.quiesce();
			await peer.session.prompt("/save-tools read,bash,nope");
			const saved = peer.session.sessionManager.getLeafId()!;
			const before = String(peer.session.sessionManager.getEntry(saved)!.parentId);
			// Away from the saved entry and back: the tree moves twice.
			await peer.session.navigateTree(before);
			await peer.session.navigateTree(saved);
			await peer.session.prompt("second");
			await peer.quiesce();
			const file = peer.session.sessionFile!;
			await peer.runtime.newSession();
			await peer.session.prompt("third");
			await peer.quiesce();
			await peer.runtime.switchSession(file);
			return {
				tools: peer.requests.map((r) => r.tools),
				// Without Settle's transcript `system` messages (its record of the prompt and tool changes).
				resumed: peer.session.sessionManager.getEntries().flatMap((e) => {
					const role = (e as { message?: { role: string } }).message?.role;
					return role === "system" ? [] : [`${e.type}:${role ?? (e as { customType?: string }).customType}`];
				}),
				active: (peer.session as unknown as { getActiveToolNames(): string[] }).getActiveToolNames(),
			};
		});
		expect(pi.tools).toEqual([
			["read", "bash", "edit", "write"],
			["read", "bash"],
			["read", "bash", "edit", "write"],
		]);
		expect(pi.active).toEqual(["read", "bash"]);
		expect(settle).toEqual(pi);
	});
});
