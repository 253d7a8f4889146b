/**
 * Differential: pi 0.73.1's example extensions that take input from outside the conversation (a
 * watched file, their own npm dependencies, resources they discover, timed dialogs), run unchanged
 * on pi's `createAgentSession` and Settle's (see pi-examples-peers.ts), with real files.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { eventPayloads, observe } from "../parity/normalize.js";
import { EXAMPLES, onBothWithExamples, runCommands } from "./pi-examples-peers.js";

const realExamples = fs.realpathSync(EXAMPLES);

/** file-trigger.ts watches this fixed path (and never stops watching: the test closes its watchers). */
const TRIGGER = "/tmp/agent-trigger.txt";

/**
 * Records the watchers `fs.watch` creates from now on; `close()` closes those made so far (each
 * peer's, before the next peer writes the trigger file), `restore()` also puts `fs.watch` back.
 */
function trackWatchers(): { close(): void; restore(): void } {
	const watchers: fs.FSWatcher[] = [];
	// The example's `import * as fs` is fs's CommonJS module object (jiti loads it through require).
	const mutableFs = createRequire(import.meta.url)("node:fs") as { watch: typeof fs.watch };
	const original = mutableFs.watch;
	mutableFs.watch = ((...args: Parameters<typeof fs.watch>) => {
		const watcher = original(...args);
		watchers.push(watcher);
		return watcher;
	}) as typeof fs.watch;
	const close = () => {
		for (const watcher of watchers.splice(0)) watcher.close();
	};
	return {
		close,
		restore() {
			mutableFs.watch = original;
			close();
		},
	};
}

describe("pi examples, differential: outside input", () => {
	it("file-trigger.ts: text written to the trigger file becomes a custom message that starts a turn", async () => {
		fs.writeFileSync(TRIGGER, "");
		const watchers = trackWatchers();
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
				fs.writeFileSync(TRIGGER, "Run the tests\n");
				await done;
				await peer.quiesce();
				return { ...observe(peer), ui: ui.log, left: fs.readFileSync(TRIGGER, "utf8") };
			} finally {
				watchers.close();
			}
		}).finally(() => watchers.restore());
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
		// given, in both); Settle imports the folder's index.ts at the path given.
		expect(JSON.parse(JSON.stringify(settle).replaceAll(EXAMPLES, realExamples))).toEqual(pi);
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
