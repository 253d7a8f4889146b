/**
 * `settle demo`: an offline tour on the scripted faux model, in a temp dir — a session whose first
 * request fails with a retryable 529, a real `read` tool call, the prompt-operation lifecycle as
 * it moves, then the runtime replacing the session: fork, and a resume into another project whose
 * own AGENTS.md and working directory take over.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "../llm/faux.js";
import type { Message, ToolResultMessage } from "../llm/types.js";
import { createAgentSessionRuntimeFactory } from "../runtime/factory.js";
import { createAgentSessionRuntime } from "../runtime/runtime.js";
import type { AgentSession } from "../session/agent-session.js";
import { makeFolders } from "../store/folders.js";
import { SessionManager } from "../store/session-manager.js";
import { createCliFaux } from "./faux-script.js";
import type { CliOutput } from "./print-mode.js";

/** Runs the demo; returns the exit code. */
export async function runDemo(out: CliOutput): Promise<number> {
	const say = (line: string) => out.stdout(`${line}\n`);
	const root = mkdtempSync(join(tmpdir(), "settle-demo-"));
	const agentDir = join(root, "agent");
	const app = join(root, "app");
	const lib = join(root, "lib");
	for (const [dir, rules] of [
		[app, "Answer briefly."],
		[lib, "This is the lib project: mention it."],
	] as const) {
		makeFolders(dir);
		writeFileSync(join(dir, "AGENTS.md"), `# Rules\n\n${rules}\n`);
	}
	writeFileSync(join(app, "notes.txt"), "Settle runs agent sessions through explicit state machines.\n");
	makeFolders(agentDir);
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 40 } }));

	const { faux, createModelRuntime } = createCliFaux([
		fauxAssistantMessage("", {
			stopReason: "error",
			errorMessage: '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
		}),
		fauxAssistantMessage([fauxText("Let me read it."), fauxToolCall("read", { path: "notes.txt" })], {
			stopReason: "toolUse",
		}),
		(context) => {
			const result = context.messages.findLast((m: Message): m is ToolResultMessage => m.role === "toolResult");
			const first = result?.content[0]?.type === "text" ? result.content[0].text.split("\n")[0] : "(nothing)";
			return fauxAssistantMessage(`notes.txt says: "${first}"`);
		},
	]);
	const runtime = await createAgentSessionRuntime(
		createAgentSessionRuntimeFactory({ modelRuntime: createModelRuntime }),
		{
			cwd: app,
			agentDir,
			sessionManager: SessionManager.create(app, join(agentDir, "sessions")),
		},
	);
	// The runtime machine's path through each replacement, printed as one line.
	let runtimePath: string[] = [];
	runtime.inspect((event) => {
		if (event.kind !== "state" || event.trigger === "inspect") return;
		if (runtimePath.length === 0) runtimePath.push(String(event.from));
		runtimePath.push(String(event.to));
		if (event.to === "active" || event.to === "disposed") {
			say(`  ◇ runtime: ${runtimePath.join(" → ")}`);
			runtimePath = [];
		}
	});
	let stopLifecycle: (() => void) | undefined;
	const bind = async (session: AgentSession) => {
		await session.bindExtensions();
		stopLifecycle?.();
		const subscription = session.inspect((event) => {
			if (event.kind === "state" && event.trigger !== "inspect") say(`  ◆ ${event.from} → ${event.to}`);
		});
		const off = session.subscribe((event) => {
			if (event.type === "auto_retry_start")
				say(`  │ retry ${event.attempt}/${event.maxAttempts} in ${event.delayMs} ms`);
			if (event.type === "tool_execution_start") say(`  │ tool ${event.toolName} runs in ${session.cwd}`);
			if (event.type === "message_end" && event.message.role === "assistant" && event.message.stopReason !== "error") {
				say(`  │ assistant: ${event.message.content.map((b) => (b.type === "text" ? b.text : "")).join("")}`);
			}
		});
		stopLifecycle = () => {
			subscription.unsubscribe();
			off();
		};
	};
	runtime.setRebindSession(bind);
	try {
		await bind(runtime.session);
		say(`▶ ${runtime.cwd}: "What do my notes say?"`);
		await runtime.session.prompt("What do my notes say?");
		const first = runtime.session.sessionManager
			.getEntries()
			.find((entry) => entry.type === "message" && entry.message.role === "user");
		const appFile = runtime.session.sessionFile!;

		say("\n▶ fork before that prompt (a new file; the old one is untouched)");
		const fork = await runtime.fork(first!.id);
		say(`  forked; selected text: "${fork.selectedText}", messages now: ${runtime.session.messages.length}`);

		say("\n▶ a session in the lib project, then resume the app session from there");
		await runtime.switchSession(join(agentDir, "sessions-lib", "lib.jsonl"), {
			cwdOverride: lib,
			createIfMissing: true,
		});
		say(`  cwd: ${runtime.cwd}; AGENTS.md says lib: ${runtime.session.systemPrompt.includes("lib project")}`);
		await runtime.session.prompt("Hello lib");
		await runtime.switchSession(appFile);
		say(`  back in ${runtime.cwd}; messages: ${runtime.session.messages.map((m) => m.role).join(", ")}`);
		say(`\nModel calls: ${faux.callCount}. (The temp dir ${root} is removed now.)`);
		return 0;
	} finally {
		stopLifecycle?.();
		await runtime.dispose();
		rmSync(root, { recursive: true, force: true });
	}
}
