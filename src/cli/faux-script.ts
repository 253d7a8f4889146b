/**
 * `--faux` / `--faux-script`: the built-in scripted model for offline runs. A script is a JSON
 * array with one step per model call; when it runs out (or without one) the model echoes the
 * last user message.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { errorMessage, SettleError } from "../errors.js";
import {
	createFauxProvider,
	type FauxProvider,
	type FauxResponseStep,
	fauxAssistantMessage,
	fauxText,
	fauxThinking,
	fauxToolCall,
} from "../llm/faux.js";
import { InMemoryModelRuntime } from "../llm/model-runtime.js";
import type { AssistantMessage, Context, Message, TextContent, ThinkingContent, ToolCall } from "../llm/types.js";

/** One step of a faux script. */
export type FauxScriptStep =
	| string
	| {
			text?: string;
			thinking?: string;
			toolCalls?: { name: string; arguments?: Record<string, unknown>; id?: string }[];
			stopReason?: AssistantMessage["stopReason"];
			errorMessage?: string;
	  };

const STOP_REASONS = new Set(["stop", "length", "toolUse", "error", "aborted"]);
const STEP_KEYS = ["text", "thinking", "toolCalls", "stopReason", "errorMessage"];
const TOOL_CALL_KEYS = ["name", "arguments", "id"];

/**
 * Reads and checks a faux script. Throws `INVALID_ARGUMENT` naming the file and the step.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 *
 * writeFileSync("demo.json", JSON.stringify(["hi", { toolCalls: [{ name: "ls" }] }]));
 * const steps = loadFauxScript("demo.json"); // two steps: a text answer, then an ls tool call
 * ```
 */
export function loadFauxScript(path: string): FauxResponseStep[] {
	const file = resolve(path);
	let parsed: unknown;
	try {
		parsed = JSON.parse(readFileSync(file, "utf8"));
	} catch (error) {
		throw new SettleError("INVALID_ARGUMENT", `Cannot read the faux script ${file}: ${errorMessage(error)}`, {
			cause: error,
			details: { path: file },
		});
	}
	if (!Array.isArray(parsed)) {
		throw new SettleError("INVALID_ARGUMENT", `The faux script ${file} must be a JSON array of steps.`, {
			details: { path: file },
		});
	}
	return parsed.map((step, index) => {
		const message = toStep(step, index, file);
		// Stamped when served, as a real provider's answer is: stamped here, at load, a run's answers
		// would predate its prompts, and `-c` / `/resume` would rank the session by its start.
		return () => ({ ...message, timestamp: Date.now() });
	});
}

function toStep(step: unknown, index: number, file: string): AssistantMessage {
	const fail = (what: string) =>
		new SettleError("INVALID_ARGUMENT", `Faux script ${file}, step ${index + 1}: ${what}`, { details: { path: file } });
	if (typeof step === "string") return fauxAssistantMessage(step);
	if (!step || typeof step !== "object" || Array.isArray(step)) throw fail("expected a string or an object");
	// A misspelt key ("toolcalls", "args") would otherwise leave an empty answer without a word.
	const unknownKey = Object.keys(step).find((key) => !STEP_KEYS.includes(key));
	if (unknownKey !== undefined) throw fail(`unknown key "${unknownKey}" (a step has ${STEP_KEYS.join(", ")})`);
	const value = step as Exclude<FauxScriptStep, string>;
	if (value.toolCalls !== undefined && !Array.isArray(value.toolCalls)) throw fail('"toolCalls" must be an array');
	const content: (TextContent | ThinkingContent | ToolCall)[] = [];
	if (value.thinking !== undefined) {
		if (typeof value.thinking !== "string") throw fail('"thinking" must be a string');
		content.push(fauxThinking(value.thinking));
	}
	if (value.text !== undefined) {
		if (typeof value.text !== "string") throw fail('"text" must be a string');
		content.push(fauxText(value.text));
	}
	for (const call of value.toolCalls ?? []) {
		if (!call || typeof call.name !== "string") throw fail('each tool call needs a "name"');
		const unknownCallKey = Object.keys(call).find((key) => !TOOL_CALL_KEYS.includes(key));
		if (unknownCallKey !== undefined) {
			throw fail(
				`tool call ${call.name}: unknown key "${unknownCallKey}" (a tool call has ${TOOL_CALL_KEYS.join(", ")})`,
			);
		}
		const args: unknown = call.arguments;
		if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) {
			throw fail(`tool call ${call.name}: "arguments" must be an object`);
		}
		content.push(fauxToolCall(call.name, call.arguments ?? {}, call.id !== undefined ? { id: call.id } : {}));
	}
	if (value.stopReason !== undefined && !STOP_REASONS.has(value.stopReason)) {
		throw fail(`"stopReason" must be one of ${[...STOP_REASONS].join(", ")}`);
	}
	const stopReason = value.stopReason ?? (value.toolCalls?.length ? "toolUse" : "stop");
	const options: { stopReason: AssistantMessage["stopReason"]; errorMessage?: string } = { stopReason };
	if (value.errorMessage !== undefined) options.errorMessage = String(value.errorMessage);
	return fauxAssistantMessage(content, options);
}

/** The echo reply: the last user message's text. */
export function echoStep(context: Context): AssistantMessage {
	const user = context.messages.findLast((message: Message) => message.role === "user");
	const text =
		user === undefined
			? "(nothing to echo)"
			: typeof user.content === "string"
				? user.content
				: user.content
						.filter((part): part is TextContent => part.type === "text")
						.map((part) => part.text)
						.join("\n");
	return fauxAssistantMessage(text);
}

/** The CLI's faux model: the script's steps first, then echo. */
export interface CliFaux {
	faux: FauxProvider;
	/** A fresh model runtime serving it (one per project, so extension providers never leak across). */
	createModelRuntime(): InMemoryModelRuntime;
}

/**
 * Builds the CLI's faux provider.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 *
 * writeFileSync("script.json", JSON.stringify(["Hello from the script."]));
 * const { createModelRuntime } = createCliFaux(loadFauxScript("script.json"));
 * const modelRuntime = createModelRuntime();
 * ```
 */
export function createCliFaux(steps: readonly FauxResponseStep[] = []): CliFaux {
	const faux = createFauxProvider();
	faux.setResponses(steps);
	const streamFn: typeof faux.streamFn = (model, context, options) => {
		if (faux.pendingResponseCount === 0) faux.appendResponses([echoStep]);
		return faux.streamFn(model, context, options);
	};
	return {
		faux,
		createModelRuntime: () => {
			const runtime = new InMemoryModelRuntime();
			runtime.registerProvider({ provider: faux.provider, models: faux.models, streamFn, apiKey: "faux-key" });
			return runtime;
		},
	};
}
