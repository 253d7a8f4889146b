/**
 * `settle -p "/cmd"` where the extension command starts the run itself (`pi.sendUserMessage`, or
 * `pi.sendMessage(…, { triggerTurn: true })`): the process waits for that run and prints its answer.
 * pi 0.73.1 exits first (its print mode returns once the command's handler has), so the message is
 * lost: a deliberate difference, pinned on pi's side too. Real child processes of both CLIs.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freshDirs, runBoth, runSettleCli } from "./pi-diff-process.js";

const root = mkdtempSync(join(tmpdir(), "settle-ext-sends-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function commandsExtension(dir: string): string {
	const file = join(dir, "..", "sends.ts");
	writeFileSync(
		file,
		`export default function (pi) {
	pi.registerCommand("say", { handler: async (args) => { pi.sendUserMessage("said " + args); } });
	pi.registerCommand("note", { handler: async (args) => { pi.sendMessage({ customType: "note", content: "note " + args, display: true }, { triggerTurn: true }); } });
}
`,
	);
	return file;
}

/** `/chain` sends "first"; the agent_settled after that run sends "second" (once). */
function chainExtension(dir: string): string {
	const file = join(dir, "..", "chain.ts");
	writeFileSync(
		file,
		`export default function (pi) {
	let chained = false;
	pi.registerCommand("chain", { handler: async () => { pi.sendUserMessage("first"); } });
	pi.on("agent_settled", () => { if (!chained) { chained = true; pi.sendUserMessage("second"); } });
}
`,
	);
	return file;
}

describe("settle -p with an extension command that starts the run", () => {
	it("regression: /say (pi.sendUserMessage) exited before the run began and printed nothing; now the answer is printed and saved (pi 0.73.1 loses it)", async () => {
		const dirs = freshDirs(root);
		const extension = commandsExtension(dirs.project);
		const { pi, settle } = await runBoth(dirs, ["-e", extension, "-p", "/say hello"]);
		expect(settle.code).toBe(0);
		expect(settle.stdout).toBe("said hello\n");
		const [file] = readdirSync(join(dirs.settleAgent, "sessions"), { recursive: true, withFileTypes: true })
			.filter((entry) => entry.isFile())
			.map((entry) => join(entry.parentPath, entry.name));
		const messages = readFileSync(file as string, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line))
			.filter((entry) => entry.type === "message" && entry.message.role !== "system")
			.map((entry) => `${entry.message.role}: ${entry.message.content[0].text}`);
		expect(messages).toEqual(["user: said hello", "assistant: said hello"]);
		// pi's print mode returns once the handler has: the message never reaches the model.
		expect(pi.code).toBe(0);
		expect(pi.stdout).toBe("");
	});

	it("/note (pi.sendMessage with triggerTurn) prints the answer to the custom message", async () => {
		const dirs = freshDirs(root);
		const run = await runSettleCli(dirs, ["-e", commandsExtension(dirs.project), "--no-session", "-p", "/note x"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("note x\n");
	});

	it("a run an agent_settled handler starts is waited for too: the last answer is printed", async () => {
		const dirs = freshDirs(root);
		const run = await runSettleCli(dirs, ["-e", chainExtension(dirs.project), "--no-session", "-p", "/chain"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("second\n");
	});
});
