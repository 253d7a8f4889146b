/**
 * codex#23223: a global `AGENTS.md` edited with the wrong encoding (an editor's Windows-1252 curly
 * quotes, bytes that are not UTF-8) was silently left out of the context; the user wanted it
 * sent, or "a clear error message". pi 0.73.1 (and Settle before) reads such a file as UTF-8 in
 * silence: the rules arrive with U+FFFD where the quotes were, and nothing tells the user why the
 * model quotes them wrong. What the user should see: the file still sent, and a warning naming it
 * and the command that converts it. The same for `SYSTEM.md` and `APPEND_SYSTEM.md`.
 *
 * Real files in legacy encodings (written with `iconv`), a real `settle -p` against a local
 * OpenAI-style server, and the public runtime.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { runtimePerTest, startRuntimeWithEmptyHome } from "../runtime/helpers.js";

/** `text` in `encoding`, as `iconv` writes it. */
function encoded(text: string, encoding: string): Buffer {
	return execFileSync("iconv", ["-f", "UTF-8", "-t", encoding], { input: text });
}

describe("codex#23223: a context file that is not UTF-8, through settle -p", () => {
	const cli = useCliProject("settle-pi-races-prompt-files-not-utf8-");
	const server = useWireServer();

	function systemText(index: number): string {
		const messages = server.requests[index]?.body.messages as { content: unknown }[];
		const first = messages[0]!.content;
		return typeof first === "string" ? first : (first as { text: string }[]).map((part) => part.text).join("");
	}

	it("codex#23223: the global AGENTS.md saved in Windows-1252 still reaches the model, and stderr names it, says it is not UTF-8 and how to convert it", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const agents = join(cli.agentDir, "AGENTS.md");
		writeFileSync(agents, encoded("GLOBAL-RULES-23223: write \u201cdone\u201d when finished.\n", "CP1252"));
		server.reply(chatReply([{ type: "text", text: "ok" }]));

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.code).toBe(0);
		expect(run.stdout).toContain("ok");
		expect(systemText(0)).toContain("GLOBAL-RULES-23223: write \ufffddone\ufffd when finished.");
		expect(run.stderr).toContain("context file AGENTS.md is not UTF-8 text");
		expect(run.stderr).toContain("iconv -f <its encoding> -t UTF-8");
		expect(run.stderr).toContain(agents);
	});

	it("codex#23223: an AGENTS.md in UTF-8 with accents and curly quotes: sent as written, no warning", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		writeFileSync(join(cli.project, "AGENTS.md"), "RULES-23223: caf\u00e9, \u201cna\u00efve\u201d, \ufffd kept.\n");
		server.reply(chatReply([{ type: "text", text: "ok" }]));

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.code).toBe(0);
		expect(systemText(0)).toContain("RULES-23223: caf\u00e9, \u201cna\u00efve\u201d, \ufffd kept.");
		expect(run.stderr).not.toContain("not UTF-8");
	});

	it("a skill and a prompt template saved in Windows-1252: both still load, and stderr names each, says it is not UTF-8 and how to convert it (they loaded in silence)", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const skill = join(cli.agentDir, "skills", "release-notes", "SKILL.md");
		mkdirSync(join(cli.agentDir, "skills", "release-notes"), { recursive: true });
		writeFileSync(
			skill,
			encoded("---\nname: release-notes\ndescription: Write \u201crelease notes\u201d.\n---\nSteps.\n", "CP1252"),
		);
		const template = join(cli.agentDir, "prompts", "review.md");
		mkdirSync(join(cli.agentDir, "prompts"), { recursive: true });
		writeFileSync(template, encoded("Review for \u201cbugs\u201d: $@\n", "CP1252"));
		server.reply(chatReply([{ type: "text", text: "ok" }]));

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "/review the parser"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.code).toBe(0);
		expect(systemText(0)).toContain("Write \ufffdrelease notes\ufffd.");
		const messages = server.requests[0]?.body.messages as { role: string; content: unknown }[];
		expect(JSON.stringify(messages.at(-1)!.content)).toContain("Review for \ufffdbugs\ufffd: the parser");
		const warned = run.stderr.split("\n").filter((line) => line.includes("is not UTF-8 text"));
		expect(warned).toHaveLength(2);
		expect(warned.find((line) => line.includes(skill))).toContain("skill file is not UTF-8 text");
		expect(warned.find((line) => line.includes(template))).toContain("prompt template is not UTF-8 text");
		for (const line of warned) expect(line).toContain("iconv -f <its encoding> -t UTF-8");
	});
});

describe("codex#23223: SYSTEM.md and APPEND_SYSTEM.md that are not UTF-8, through the runtime", () => {
	const perTest = runtimePerTest();

	it("codex#23223: a project SYSTEM.md in GBK and the global APPEND_SYSTEM.md in Windows-1252: both sent, one warning each naming the file", async () => {
		const ws = perTest.workspace();
		const system = join(ws.alpha, ".settle", "SYSTEM.md");
		mkdirSync(join(ws.alpha, ".settle"), { recursive: true });
		writeFileSync(system, encoded("SYSTEM-23223: 你是代码审查员。\n", "GBK"));
		const append = join(ws.agentDir, "APPEND_SYSTEM.md");
		writeFileSync(append, encoded("APPEND-23223: r\u00e9sum\u00e9 first.\n", "CP1252"));
		const faux = createFauxProvider();
		const runtime = await perTest.runtime(startRuntimeWithEmptyHome(faux, ws, ws.alpha));
		faux.setResponses([fauxAssistantMessage("ok")]);

		await runtime.session.prompt("hi");

		const systemPrompt = faux.requests[0]!.systemPrompt ?? "";
		expect(systemPrompt.startsWith("SYSTEM-23223: ")).toBe(true);
		expect(systemPrompt).toContain("APPEND-23223: r\ufffdsum\ufffd first.");
		const warnings = runtime.diagnostics.filter((d) => d.message.includes("not UTF-8"));
		expect(warnings.map((d) => [d.message.split(":")[0], d.path])).toEqual([
			["system prompt file is not UTF-8 text", system],
			["appended system prompt file is not UTF-8 text", append],
		]);
	});
});
