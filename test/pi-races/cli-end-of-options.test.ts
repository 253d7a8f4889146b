/**
 * A harness that launched pi as `pi -p -- "<prompt>"` (Margin-Lab/evals#56): pi has no `--`, read
 * it as an unknown option and every run failed at launch with exit 1 — and a prompt starting with
 * "-" could not be given on the command line at all. Replayed against real `settle` child processes
 * on the faux model (it answers with the prompt's text). What a script should see: `--` ends the
 * options, and what follows reaches the model as the prompt, word for word.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { persistedUserTexts } from "./helpers.js";

const cli = useCliProject("settle-pi-races-end-of-options-");

describe("Margin-Lab/evals#56: a bare `--` before the prompt", () => {
	it('Margin-Lab/evals#56: settle -p -- "<prompt>": the prompt after `--` (one starting with "-") is answered and saved as given, exit 0', () => {
		const sessions = join(cli.dir, "sessions");
		const run = cli.settle(["--faux", "--session-dir", sessions, "-p", "--", "-v prints nothing; why?"]);
		expect(run).toEqual({ code: 0, stdout: "-v prints nothing; why?\n", stderr: "" });
		const files = readdirSync(sessions);
		expect(files).toHaveLength(1);
		expect(persistedUserTexts(join(sessions, files[0]!))).toEqual(["-v prints nothing; why?"]);
	});

	it('Margin-Lab/evals#56: settle --json -- "--mode rpc" "@notes.md": what follows `--` is prompt text, never an option or a file; JSON lines only on stdout, exit 0', () => {
		const run = cli.settle(["--faux", "--no-session", "--json", "--", "--mode rpc", "@notes.md"]);
		expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
		const events = run.stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: unknown } });
		const prompts = events
			.filter((event) => event.type === "message_end" && event.message?.role === "user")
			.map((event) => event.message?.content);
		expect(prompts).toEqual([[{ type: "text", text: "--mode rpc" }], [{ type: "text", text: "@notes.md" }]]);
		expect(events.at(-1)).toEqual({ type: "agent_settled" });
	});
});
