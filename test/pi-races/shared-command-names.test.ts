/**
 * pi#1061: extensions pick common words for their commands (`/review`, `/diff`); two that picked
 * the same one made pi refuse to load the later extension ("Command "/review" conflicts with …").
 * pi then numbered them (`/review:1`, `/review:2`), as Settle does, so both load; but the plain
 * `/review` the user had always typed named no command any more and went to the model as a prompt:
 * a paid request answering the text "/review main", and neither extension ran.
 *
 * Replayed with a real `settle -p`, two extension files on disk and a local Chat Completions server.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";
import { writeExtension } from "./helpers.js";

const cli = useCliProject("settle-shared-command-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

/** An extension whose `/review` asks the model for a review, signed `by`. */
const reviewCommand = (by: string) => `
pi.registerCommand("review", {
	description: "Review a branch (${by})",
	handler: async (args) => pi.sendUserMessage("review by ${by}: " + args),
});`;

type Sent = { role: string; content?: unknown };

describe("pi#1061: two extensions register the same command name", () => {
	it("pi#1061: the plain /review is refused naming /review:1 and /review:2 and their files, nothing sent to the model; /review:2 runs the second extension's command", async () => {
		server = await startWireServer();
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const first = writeExtension(cli.dir, "review-a.mjs", reviewCommand("A"));
		const second = writeExtension(cli.dir, "review-b.mjs", reviewCommand("B"));
		const settle = (prompt: string) =>
			runSettleAsync(
				["--session-dir", join(cli.dir, "sessions"), "--model", "local/coder", "-e", first, "-e", second, "-p", prompt],
				{ cwd: cli.project, agentDir: cli.agentDir },
			);

		const plain = await settle("/review main");
		expect(plain.code).toBe(1);
		expect(plain.stdout).toBe("");
		expect(plain.stderr).toContain(
			`/review is a command of 2 extensions, so each is run by its number: /review:1 (${first}), /review:2 (${second}). Nothing was sent to the model.`,
		);
		expect(server.requests).toHaveLength(0);

		server.reply(chatReply([{ type: "text", text: "Looks good." }], { model: "coder" }));
		const numbered = await settle("/review:2 main");
		expect(numbered.stderr).toBe("");
		expect(numbered.stdout).toBe("Looks good.\n");
		const sent = (server.requests[0]!.body as { messages: Sent[] }).messages.filter((m) => m.role === "user");
		expect(sent.map((m) => m.content)).toEqual([[{ type: "text", text: "review by B: main" }]]);
	});

	it('pi#1061: settle -i answers the plain /review with the same two numbered names, not "unknown command"', async () => {
		const first = writeExtension(cli.dir, "review-a.mjs", reviewCommand("A"));
		const second = writeExtension(cli.dir, "review-b.mjs", reviewCommand("B"));
		const chat = new Repl(["--faux", "--no-session", "-e", first, "-e", second], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await chat.idle(0);
		const said = await chat.say("/review main");
		expect(said).toContain(
			`Error: /review is a command of 2 extensions, so each is run by its number: /review:1 (${first}), /review:2 (${second}). Nothing was sent to the model.`,
		);
		expect(said).not.toContain("unknown command");
		chat.send("/quit");
		expect(await chat.exited).toBe(0);
	});

	it("pi#1061: a prompt template named review still runs on the plain /review (pi's order: an extension command of that name first, then templates), in -p and settle -i", async () => {
		const first = writeExtension(cli.dir, "review-a.mjs", reviewCommand("A"));
		const second = writeExtension(cli.dir, "review-b.mjs", reviewCommand("B"));
		mkdirSync(join(cli.agentDir, "prompts"), { recursive: true });
		writeFileSync(join(cli.agentDir, "prompts", "review.md"), "Review the branch $1 for bugs.");
		const args = ["--faux", "--no-session", "-e", first, "-e", second];

		const run = await runSettleAsync([...args, "-p", "/review main"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("Review the branch main for bugs.\n");
		expect(run.code).toBe(0);

		const chat = new Repl(args, { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const said = await chat.say("/review main", "\n>");
		expect(said).not.toContain("Error:");
		expect(said).toContain("Review the branch main for bugs.");
		chat.send("/quit");
		expect(await chat.exited).toBe(0);
	});
});
