/**
 * Quickstart: an AgentSession, offline, on the scripted faux provider.
 *
 * - the session log is a real JSONL file in a temp dir;
 * - the model calls the built-in `read` tool on a real file;
 * - an inline extension watches tool calls;
 * - the first request fails with a retryable 529 and is retried after a short backoff;
 * - the lifecycle (the prompt-operation state machine) is printed as it moves;
 * - the session file is reopened and its context compared with the live one.
 *
 *   npm run demo
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	AgentSession,
	createTestResourceLoader,
	type ExtensionAPI,
	InMemoryModelRuntime,
	type Message,
	SessionManager,
	SettingsManager,
	type ToolResultMessage,
} from "settle";
import { createFauxProvider, fauxAssistantMessage, fauxText, fauxToolCall } from "settle/testing";

const started = performance.now();
const out = (line: string) => process.stdout.write(`${line}\n`);
const dir = await mkdtemp(join(tmpdir(), "settle-quickstart-"));
await writeFile(
	join(dir, "notes.txt"),
	"Settle runs agent sessions through explicit state machines.\nEvery event is awaited.\n",
);

// The scripted model: an overload error first, then a tool call, then an answer built from the tool result.
const faux = createFauxProvider();
faux.setResponses([
	() =>
		fauxAssistantMessage("", {
			stopReason: "error",
			errorMessage: '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
		}),
	() =>
		fauxAssistantMessage([fauxText("Let me read the file."), fauxToolCall("read", { path: "notes.txt" })], {
			stopReason: "toolUse",
		}),
	(context) => {
		const result = context.messages.findLast(
			(message: Message): message is ToolResultMessage => message.role === "toolResult",
		);
		const firstLine = result?.content[0]?.type === "text" ? result.content[0].text.split("\n")[0] : "(nothing)";
		return fauxAssistantMessage(`The file starts with: "${firstLine}"`);
	},
]);
const modelRuntime = new InMemoryModelRuntime();
modelRuntime.registerFauxProvider(faux);

// An inline extension: sees every tool call before it runs (it could block it).
const watcher = (pi: ExtensionAPI) => {
	pi.on("tool_call", (event) => {
		out(`  │ [extension] tool_call ${event.toolName} ${JSON.stringify(event.input)}`);
		return undefined;
	});
};

const sessionManager = SessionManager.create(dir, join(dir, "sessions"));
const session = await AgentSession.create({
	sessionManager,
	settingsManager: SettingsManager.inMemory({ retry: { baseDelayMs: 50 } }),
	resourceLoader: createTestResourceLoader({ extensionFactories: [watcher] }),
	modelRuntime,
	cwd: dir,
	model: faux.getModel(),
});
await session.bindExtensions();

// The lifecycle, from the machine's inspection stream.
session.inspect((event) => {
	// The guard that chose the path (`[canRetry]`), as the diagrams label their edges.
	const guard = event.kind === "state" && event.transition?.guard ? ` [${event.transition.guard}]` : "";
	if (event.kind === "state" && event.trigger !== "inspect")
		out(`  ◆ ${event.from} → ${event.to}  (${event.trigger}${guard})`);
	if (event.kind === "delay" && event.phase === "scheduled") out(`  ◆ backoff ${event.ms} ms`);
});

// Session events: what a UI would render.
session.subscribe((event) => {
	switch (event.type) {
		case "message_end":
			if (event.message.role === "user") out(`  │ user: ${textOf(event.message.content)}`);
			if (event.message.role === "assistant") {
				const text = event.message.content
					.map((block) => (block.type === "text" ? block.text : ""))
					.join("")
					.trim();
				out(`  │ assistant (${event.message.stopReason}): ${text || event.message.errorMessage || ""}`);
			}
			if (event.message.role === "toolResult") out(`  │ tool result: ${event.message.isError ? "error" : "ok"}`);
			break;
		case "tool_execution_start":
			out(`  │ → ${event.toolName} runs`);
			break;
		case "auto_retry_start":
			out(
				`  │ retrying (attempt ${event.attempt}/${event.maxAttempts}) after ${event.delayMs} ms: ${event.errorMessage}`,
			);
			break;
		case "auto_retry_end":
			out(`  │ retry ${event.success ? "succeeded" : `failed: ${event.finalError}`}`);
			break;
		case "agent_settled":
			out("  ■ agent_settled");
			break;
	}
});

let exitCode = 0;
try {
	out("▶ prompt: Summarize notes.txt for me.");
	await session.prompt("Summarize notes.txt for me.");
	out(`\nLive context:     ${session.messages.map((message) => message.role).join(" → ")}`);
	const file = session.sessionFile!;
	const reopened = SessionManager.open(file, undefined, undefined, { readOnly: true });
	const context = reopened.buildSessionContext().messages;
	reopened.close();
	out(`Reopened context: ${context.map((message) => message.role).join(" → ")}`);
	const same = JSON.stringify(context) === JSON.stringify(session.messages);
	out(`The reopened file rebuilds the same context: ${same ? "yes" : "NO"}`);
	out(
		`Entries in ${file.slice(dir.length + 1)}: ${sessionManager
			.getEntries()
			.map((entry) => entry.type)
			.join(", ")}`,
	);
	out(`Model calls: ${faux.callCount}; finished in ${(performance.now() - started).toFixed(0)} ms.`);
	if (!same || session.lifecycle !== "idle") exitCode = 1;
} finally {
	session.dispose();
	sessionManager.close();
	await rm(dir, { recursive: true, force: true });
}
process.exitCode = exitCode;

function textOf(content: string | readonly { type: string; text?: string }[]): string {
	return typeof content === "string" ? content : content.map((block) => block.text ?? "").join("");
}
