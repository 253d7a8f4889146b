/**
 * Differential: pi 0.73.1's example extensions that take input from outside the conversation (a
 * watched file, their own npm dependencies, resources they discover, timed dialogs), run unchanged
 * on pi's `createAgentSession` and Settle's (see pi-examples-peers.ts), with real files.
 */
import * as fs from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventPayloads, observe } from "../parity/normalize.js";
import { EXAMPLES, onBothWithExamples, runCommands } from "./pi-examples-peers.js";

const realExamples = fs.realpathSync(EXAMPLES);

/** file-trigger.ts watches this fixed path (and never stops watching: the test closes its watchers). */
const TRIGGER = "/tmp/agent-trigger.txt";

/**
 * Gives file-trigger.ts a private trigger file: its `fs.watch`, `fs.readFileSync` and
 * `fs.writeFileSync` of {@link TRIGGER} act on `path` (a real file in a fresh temp folder) instead.
 * Why: the fixed path is one file per machine, so two runs of this test at once (two worktrees, a
 * mutation run beside a test run) each see the other's write, and whichever reads it first clears
 * it: the other waits for a turn that never starts until the 30 s timeout. Also records the watchers made:
 * `close()` closes those made so far (each peer's, before the next peer writes the trigger file),
 * `restore()` also puts fs back and removes the folder.
 */
function privateTrigger(): { path: string; close(): void; restore(): void } {
	const dir = fs.mkdtempSync(join(tmpdir(), "settle-file-trigger-"));
	const path = join(dir, "agent-trigger.txt");
	fs.writeFileSync(path, "");
	const watchers: fs.FSWatcher[] = [];
	// The example's `import * as fs` is node:fs's ES module namespace: it sees a patch of the CommonJS
	// module object only once syncBuiltinESMExports() copies it over (without, nothing was intercepted).
	type Patched = Pick<typeof fs, "watch" | "readFileSync" | "writeFileSync">;
	const mutableFs = createRequire(import.meta.url)("node:fs") as Patched;
	const original: Patched = {
		watch: mutableFs.watch,
		readFileSync: mutableFs.readFileSync,
		writeFileSync: mutableFs.writeFileSync,
	};
	const mapped = (file: unknown) => (file === TRIGGER ? path : file);
	mutableFs.watch = ((file: fs.PathLike, ...rest: unknown[]) => {
		const watcher = (original.watch as (...args: unknown[]) => fs.FSWatcher)(mapped(file), ...rest);
		watchers.push(watcher);
		return watcher;
	}) as typeof fs.watch;
	mutableFs.readFileSync = ((file: unknown, ...rest: unknown[]) =>
		(original.readFileSync as (...args: unknown[]) => unknown)(mapped(file), ...rest)) as typeof fs.readFileSync;
	mutableFs.writeFileSync = ((file: unknown, ...rest: unknown[]) =>
		(original.writeFileSync as (...args: unknown[]) => unknown)(mapped(file), ...rest)) as typeof fs.writeFileSync;
	syncBuiltinESMExports();
	const close = () => {
		for (const watcher of watchers.splice(0)) watcher.close();
	};
	return {
		path,
		close,
		restore() {
			Object.assign(mutableFs, original);
			syncBuiltinESMExports();
			close();
			fs.rmSync(dir, { recursive: true, force: true });
		},
	};
}

describe("pi examples, differential: outside input", () => {
	it("file-trigger.ts: text written to the trigger file becomes a custom message that starts a turn", async () => {
		const trigger = privateTrigger();
		const { pi, settle } = await onBothWithExamples(["file-trigger.ts"], {}, async ({ peer, ui }) => {
			try {
				let answered!: () => void;
				const done = new Promise<void>((resolve) => {
					answered = resolve;
				});
				peer.script([
					(request) => {
						answered();
						return { text: `Triggered by: ${request.messages.at(-1)}` };
					},
				]);
				fs.writeFileSync(trigger.path, "Run the tests\n");
				await done;
				await peer.quiesce();
				return { ...observe(peer), ui: ui.log, left: fs.readFileSync(trigger.path, "utf8") };
			} finally {
				trigger.close();
			}
		}).finally(() => trigger.restore());
		expect(pi.requests.map((r) => r.messages)).toEqual([["user: External trigger: Run the tests"]]);
		expect(pi.ui).toEqual([["notify", "Watching /tmp/agent-trigger.txt", "info"]]);
		expect(pi.left).toBe("");
		expect(settle).toEqual(pi);
	});

	it("with-deps.ts: its tool runs its own npm dependency (ms); a bad duration is a tool error", async () => {
		const { pi, settle } = await onBothWithExamples(["with-deps"], {}, async ({ peer }) => {
			peer.script([
				{
					toolCalls: [
						{ id: "d1", name: "parse_duration", args: { duration: "2 days" } },
						{ id: "d2", name: "parse_duration", args: { duration: "soon" } },
					],
				},
				{ text: "Parsed." },
			]);
			await peer.prompt("how long is 2 days?");
			await peer.quiesce();
			return { ...observe(peer), tools: eventPayloads(peer.recorded, ["tool_execution_end"]) };
		});
		expect(pi.requests[1]?.messages.slice(-2)).toEqual([
			"toolResult parse_duration: 2 days = 172800000 milliseconds",
			'toolResult parse_duration error: Invalid duration: "soon"',
		]);
		expect(settle).toEqual(pi);
	});

	it("dynamic-resources: the skill and prompt template it returns from resources_discover are usable", async () => {
		const { pi, settle } = await onBothWithExamples(["dynamic-resources"], {}, async ({ peer }) => {
			peer.script([{ text: "Template seen." }, { text: "Skill seen." }]);
			await runCommands(peer, "/dynamic focus on tests", "/skill:dynamic-resources explain");
			await peer.quiesce();
			return observe(peer);
		});
		const [template, skill] = pi.requests.map((r) => r.messages.at(-1));
		expect(template).toBe("user: Summarize the current repository structure and mention any build or test commands.");
		expect(skill).toBe(
			`user: <skill name="dynamic-resources" location="${realExamples}/dynamic-resources/SKILL.md">\n` +
				`References are relative to ${realExamples}/dynamic-resources.\n\n# Dynamic Resources Skill\n\n` +
				"This skill is provided by the dynamic-resources extension.\n</skill>\n\nexplain",
		);
		// Deliberate: pi imports a folder extension through Node's resolution of the folder, which
		// follows symlinks (its import.meta.url is the real path; a file extension keeps the path
		// given, in both); Settle imports the folder's index.ts at the path given. Deliberate too: the
		// template names no `$1` / `$@`, so pi drops "focus on tests"; Settle keeps it after a blank
		// line (mastra#13493).
		const templateText = template?.slice("user: ".length) ?? "";
		// The text ends where its JSON string ends: in the requests it follows "user: ".
		const ending = JSON.stringify(templateText).slice(1);
		const piWithArguments = JSON.parse(
			JSON.stringify(pi).replaceAll(ending, `${ending.slice(0, -1)}\\n\\nfocus on tests"`),
		);
		expect(JSON.parse(JSON.stringify(settle).replaceAll(EXAMPLES, realExamples))).toEqual(piWithArguments);
	});

	it("timed-confirm.ts: the dialogs get the timeout or signal; answers and no answers are reported", async () => {
		const { pi, settle } = await onBothWithExamples(
			["timed-confirm.ts"],
			{ answers: [true, undefined, "Option B", false] },
			async ({ peer, ui }) => {
				await runCommands(peer, "/timed", "/timed", "/timed-select", "/timed-signal");
				await peer.quiesce();
				return {
					...observe(peer),
					ui: ui.log.map((call) =>
						call.map((arg) =>
							(arg as { signal?: unknown })?.signal instanceof AbortSignal ? { signal: "<signal>" } : arg,
						),
					),
				};
			},
		);
		const dialog = ["Timed Confirmation", "This dialog will auto-cancel in 5 seconds. Confirm?"];
		expect(pi.ui).toEqual([
			["confirm", ...dialog, { timeout: 5000 }],
			["notify", "Confirmed by user!", "info"],
			["confirm", ...dialog, { timeout: 5000 }],
			["notify", "Cancelled or timed out", "info"],
			["select", "Pick an option", ["Option A", "Option B", "Option C"], { timeout: 10000 }],
			["notify", "Selected: Option B", "info"],
			["notify", "Dialog will auto-cancel in 5 seconds...", "info"],
			["confirm", ...dialog, { signal: "<signal>" }],
			["notify", "Cancelled by user", "info"],
		]);
		expect(settle).toEqual(pi);
	});
});
