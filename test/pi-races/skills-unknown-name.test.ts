/**
 * `/skill:<name>` with a name no skill has (a typo, a skill not installed here): pi 0.73.1 sends the
 * text as typed, so the model is paid to answer "/skill:nosuch do x", a command it cannot run, and
 * the user may not notice that no skill ran. `settle -i` already refused it; `settle -p` and RPC
 * sent it. What the user should see: the prompt refused (`INVALID_ARGUMENT`; exit 1 in print mode),
 * naming the skill typed and the skills that exist, and nothing sent.
 *
 * Replayed with real `settle -p` and `settle --mode rpc` processes and a local Chat Completions server.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RpcClient } from "../../src/rpc/client.js";
import { cliCommand, runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-skill-unknown-");
let server: WireServer | undefined;
let rpc: RpcClient | undefined;
afterEach(async () => {
	await rpc?.stop();
	rpc = undefined;
	await server?.close();
	server = undefined;
});

function writeSkill(name: string): void {
	const dir = join(cli.agentDir, "skills", name);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: Skill ${name}\n---\n${name} body\n`);
}

async function localModel(): Promise<WireServer> {
	server = await startWireServer();
	writeLocalProvider(cli.agentDir, `${server.url}/v1`);
	return server;
}

const print = (prompt: string) =>
	runSettleAsync(["--no-session", "--model", "local/coder", "-p", prompt], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});

describe("/skill:<name> that no skill has", () => {
	it("settle -p '/skill:nosuch do x' exits 1 naming nosuch and the loaded skills; no request reaches the model", async () => {
		const model = await localModel();
		writeSkill("review");
		writeSkill("deploy");
		const run = await print("/skill:nosuch do x");
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(
			"/skill:nosuch names no loaded skill. The loaded skills are /skill:deploy, /skill:review. Nothing was sent to the model.",
		);
		expect(run.code).toBe(1);
		expect(model.requests).toHaveLength(0);

		// A skill that exists still runs.
		model.reply(chatReply([{ type: "text", text: "Reviewed." }], { model: "coder" }));
		const ok = await print("/skill:review src/a.ts");
		expect(ok.stderr).toBe("");
		expect(ok.stdout).toBe("Reviewed.\n");
		expect(model.requests).toHaveLength(1);
	});

	it("a name that differs only in case says which skill was meant; with no skills at all it says none are loaded", async () => {
		await localModel();
		writeSkill("code");
		const typo = await print("/skill:Code a.ts");
		expect(typo.code).toBe(1);
		expect(typo.stderr).toContain(
			"/skill:Code names no loaded skill. Skill names are case-sensitive: did you mean /skill:code? The loaded skills are /skill:code.",
		);
		const none = await runSettleAsync(["--no-session", "--no-skills", "--model", "local/coder", "-p", "/skill:code"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(none.code).toBe(1);
		expect(none.stderr).toContain(
			"/skill:code names no loaded skill. No skills are loaded. Nothing was sent to the model.",
		);
		expect(server?.requests).toHaveLength(0);
	});

	it("over RPC the prompt is refused (COMMAND_FAILED with the same text) and the session stays usable", async () => {
		const model = await localModel();
		writeSkill("review");
		rpc = new RpcClient({
			command: [process.execPath, ...cliCommand(), "--mode", "rpc"],
			cwd: cli.project,
			env: { SETTLE_AGENT_DIR: cli.agentDir },
			args: ["--no-session", "--model", "local/coder"],
		});
		await rpc.start();
		const refused = await rpc.prompt("/skill:nosuch do x").then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(refused).toMatchObject({ code: "COMMAND_FAILED" });
		expect((refused as Error).message).toContain(
			"/skill:nosuch names no loaded skill. The loaded skills are /skill:review. Nothing was sent to the model.",
		);
		expect(model.requests).toHaveLength(0);
		model.reply(chatReply([{ type: "text", text: "Hi." }], { model: "coder" }));
		await rpc.promptAndWait("hello");
		expect(await rpc.getLastAssistantText()).toBe("Hi.");
	});
});
