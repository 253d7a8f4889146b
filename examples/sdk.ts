/**
 * The README's SDK example: a session on the built-in scripted model, with a custom tool, an
 * extension hook, the lifecycle printed from `session.inspect()`, and the JSONL file reopened.
 *
 *   npx tsx examples/sdk.ts
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import {
	createAgentSession,
	createFauxProvider,
	DefaultResourceLoader,
	defineTool,
	fauxAssistantMessage,
	fauxToolCall,
	InMemoryModelRuntime,
	SessionManager,
	SettingsManager,
} from "settle";

const cwd = mkdtempSync(join(tmpdir(), "settle-sdk-"));

// 1. A model: the scripted faux provider (for real providers, leave out modelRuntime and pass model: "provider/id";
//    createAgentSession then builds pi-ai's runtime with keys from the environment or <agentDir>/auth.json).
const faux = createFauxProvider();
const modelRuntime = new InMemoryModelRuntime();
modelRuntime.registerFauxProvider(faux);

// 2. A tool of your own, next to the built-in read/bash/edit/write.
const weather = defineTool({
	name: "weather",
	label: "Weather",
	description: "Current weather for a city",
	parameters: Type.Object({ city: Type.String() }),
	execute: async (_id, { city }) => ({ content: [{ type: "text", text: `${city}: 21°C, clear` }], details: {} }),
});

// 3. The session: JSONL on disk, settings in memory, an inline extension.
const agentDir = join(cwd, ".agent");
const settingsManager = SettingsManager.inMemory();
const resourceLoader = new DefaultResourceLoader({
	cwd,
	agentDir,
	settingsManager,
	extensionFactories: [
		(pi) => {
			pi.on("tool_call", (event) => {
				console.log(`  extension saw tool_call ${event.toolName}`);
			});
		},
	],
});
await resourceLoader.reload();
const { session } = await createAgentSession({
	cwd,
	agentDir,
	modelRuntime,
	model: faux.getModel(),
	settingsManager,
	resourceLoader,
	sessionManager: SessionManager.create(cwd, join(cwd, "sessions")),
	customTools: [weather],
});
await session.bindExtensions();

session.inspect((event) => {
	if (event.kind === "state" && event.from) console.log(`  ◆ ${event.from} → ${event.to}`);
});
session.subscribe((event) => {
	if (event.type === "message_end" && event.message.role === "assistant") {
		const text = event.message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
		if (text) console.log(`  assistant: ${text}`);
	}
	if (event.type === "agent_settled") console.log("  agent_settled");
});

faux.setResponses([
	fauxAssistantMessage([fauxToolCall("weather", { city: "Lisbon" })], { stopReason: "toolUse" }),
	(context) => {
		const last = context.messages.at(-1);
		const result = last?.role === "toolResult" && last.content[0]?.type === "text" ? last.content[0].text : "?";
		return fauxAssistantMessage(`It is ${result.split(": ")[1]} in Lisbon.`);
	},
]);

await session.prompt("What's the weather in Lisbon?"); // resolves after agent_settled
const file = session.sessionFile!;
session.dispose();

const reopened = SessionManager.open(file, undefined, undefined, { readOnly: true });
console.log(`Reopened ${reopened.buildSessionContext().messages.length} context messages from ${file}`);
