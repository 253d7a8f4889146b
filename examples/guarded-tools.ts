/**
 * A tool of your own behind a policy extension, with the session's events streamed to stdout.
 *
 * - `deploy` is an SDK tool (`defineTool`, TypeBox parameters);
 * - an inline extension blocks `deploy` to prod: the call gets an error result with the reason,
 *   the staging call in the same reply runs, and the model sees both results;
 * - assistant text streams as it arrives (`message_update` text deltas), tool calls print as they
 *   start and end, and `prompt()` resolves after the one `agent_settled`.
 *
 *   npx tsx examples/guarded-tools.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import {
	createAgentSession,
	createFauxProvider,
	DefaultResourceLoader,
	defineTool,
	type ExtensionFactory,
	fauxAssistantMessage,
	fauxToolCall,
	InMemoryModelRuntime,
	SessionManager,
	SettingsManager,
	type ToolResultMessage,
} from "settle";

const cwd = mkdtempSync(join(tmpdir(), "settle-guarded-"));
const out = (text: string) => process.stdout.write(text);

const deploy = defineTool({
	name: "deploy",
	label: "Deploy",
	description: "Deploy a service to an environment",
	parameters: Type.Object({
		service: Type.String(),
		env: Type.Union([Type.Literal("staging"), Type.Literal("prod")]),
	}),
	execute: async (_id, { service, env }) => ({
		content: [{ type: "text", text: `deployed ${service} to ${env}` }],
		details: { service, env },
	}),
});

// Returning { block: true, reason } from a tool_call handler skips the call; the reason becomes its error result.
const prodNeedsAHuman: ExtensionFactory = (pi) => {
	pi.on("tool_call", (event) =>
		event.toolName === "deploy" && event.input.env === "prod"
			? { block: true, reason: "Blocked: prod deploys need a human." }
			: undefined,
	);
};

const faux = createFauxProvider();
const modelRuntime = new InMemoryModelRuntime();
modelRuntime.registerFauxProvider(faux);
const settingsManager = SettingsManager.inMemory();
const { session } = await createAgentSession({
	cwd,
	agentDir: join(cwd, ".agent"),
	modelRuntime,
	model: faux.getModel(),
	settingsManager,
	// createAgentSession reloads a loader that was not loaded yet, so the extension is in place.
	resourceLoader: new DefaultResourceLoader({
		cwd,
		agentDir: join(cwd, ".agent"),
		settingsManager,
		extensionFactories: [prodNeedsAHuman],
	}),
	sessionManager: SessionManager.inMemory(cwd),
	customTools: [deploy],
});
await session.bindExtensions();

session.subscribe((event) => {
	switch (event.type) {
		case "message_update":
			if (event.assistantMessageEvent.type === "text_delta") out(event.assistantMessageEvent.delta);
			break;
		case "message_end":
			if (event.message.role === "assistant" && event.message.content.some((block) => block.type === "text")) {
				out("\n");
			}
			break;
		case "tool_execution_start":
			out(`→ ${event.toolName} ${JSON.stringify(event.args)}\n`);
			break;
		case "tool_execution_end": {
			const first = event.result.content[0];
			out(`← ${event.toolName} ${event.isError ? "error" : "ok"}: ${first?.type === "text" ? first.text : ""}\n`);
			break;
		}
		case "agent_settled":
			out("■ agent_settled\n");
			break;
	}
});

faux.setResponses([
	fauxAssistantMessage(
		[
			fauxToolCall("deploy", { service: "api", env: "staging" }),
			fauxToolCall("deploy", { service: "api", env: "prod" }),
		],
		{ stopReason: "toolUse" },
	),
	// A reply built from the request: what the model saw of the two calls.
	(context) => {
		const results = context.messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
		const failed = results.filter((result) => result.isError).length;
		return fauxAssistantMessage(
			`${results.length - failed} of ${results.length} deploys went out; prod is waiting for you.`,
		);
	},
]);

await session.prompt("Deploy api to staging and prod.");
session.dispose();
rmSync(cwd, { recursive: true, force: true });
