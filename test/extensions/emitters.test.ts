import { describe, expect, it } from "vitest";
import { isToolCallEventType } from "../../src/extensions/guards.js";
import { MESSAGE_END_ROLE_MESSAGE } from "../../src/extensions/messages.js";
import type { AgentMessage, AssistantMessage, ImageContent, UserMessage } from "../../src/llm/types.js";
import { emptyUsage } from "../../src/llm/types.js";
import type { SystemMessage } from "../../src/session/messages.js";
import type { SystemPromptOptions } from "../../src/session/system-prompt.js";
import { runnerWith, withoutStacks } from "./helpers.js";

const image: ImageContent = { type: "image", data: "AAAA", mimeType: "image/png" };
const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: 1 });
const system = (content: string): SystemMessage => ({ role: "system", content, timestamp: 0 });
const assistant = (text: string): AssistantMessage => ({
	role: "assistant",
	content: [{ type: "text", text }],
	api: "faux",
	provider: "faux",
	model: "m",
	usage: emptyUsage(),
	stopReason: "stop",
	timestamp: 2,
});

describe("emitInput", () => {
	it("continues without handlers, and when handlers change nothing", async () => {
		expect(await (await runnerWith()).runner.emitInput("hi", undefined, "interactive")).toEqual({ action: "continue" });
		const { runner } = await runnerWith(
			(pi) => pi.on("input", () => ({ action: "continue" })),
			(pi) => pi.on("input", () => undefined),
		);
		expect(await runner.emitInput("hi", [image], "rpc")).toEqual({ action: "continue" });
	});

	it("chains transforms, keeping images when a transform omits them", async () => {
		const seen: unknown[] = [];
		const other: ImageContent = { ...image, data: "BBBB" };
		const { runner } = await runnerWith(
			(pi) => pi.on("input", (event) => ({ action: "transform", text: `${event.text}!` })),
			(pi) =>
				pi.on("input", (event) => {
					seen.push(event.text, event.images);
					return { action: "transform", text: event.text.toUpperCase() };
				}),
		);
		expect(await runner.emitInput("hi", [image], "interactive")).toEqual({
			action: "transform",
			text: "HI!",
			images: [image],
		});
		expect(seen).toEqual(["hi!", [image]]);

		const replacing = await runnerWith((pi) =>
			pi.on("input", () => ({ action: "transform", text: "x", images: [other] })),
		);
		expect(await replacing.runner.emitInput("hi", [image], "interactive")).toEqual({
			action: "transform",
			text: "x",
			images: [other],
		});
	});

	it("stops at handled", async () => {
		const seen: string[] = [];
		const { runner } = await runnerWith(
			(pi) => pi.on("input", () => ({ action: "transform", text: "changed" })),
			(pi) => pi.on("input", () => ({ action: "handled" })),
			(pi) =>
				pi.on("input", () => {
					seen.push("after handled");
					return undefined;
				}),
		);
		expect(await runner.emitInput("hi", undefined, "interactive")).toEqual({ action: "handled" });
		expect(seen).toEqual([]);
	});

	it("passes source, and streamingBehavior and inputId only when given", async () => {
		const events: unknown[] = [];
		const { runner } = await runnerWith((pi) => pi.on("input", (event) => void events.push({ ...event })));
		await runner.emitInput("a", undefined, "extension");
		await runner.emitInput("b", undefined, "rpc", { streamingBehavior: "steer", inputId: "in-1" });
		expect(events).toEqual([
			{ type: "input", text: "a", images: undefined, source: "extension" },
			{ type: "input", text: "b", images: undefined, source: "rpc", streamingBehavior: "steer", inputId: "in-1" },
		]);
	});

	it("reports a transform without text and ignores it", async () => {
		const { runner, errors } = await runnerWith((pi) => pi.on("input", () => ({ action: "transform" }) as never));
		expect(await runner.emitInput("hi", undefined, "interactive")).toEqual({ action: "continue" });
		expect(errors.map((e) => e.event)).toEqual(["input"]);
	});
});

describe("emitBeforeAgentStart", () => {
	const options = (): SystemPromptOptions => ({ cwd: "/repo", selectedTools: ["read"] });

	it("resolves undefined when no handler contributes", async () => {
		const { runner } = await runnerWith((pi) => pi.on("before_agent_start", () => undefined));
		expect(await runner.emitBeforeAgentStart("p", undefined, "SYS", options())).toBeUndefined();
	});

	it("collects messages from every handler and chains the system prompt", async () => {
		const seenPrompts: string[] = [];
		const { runner } = await runnerWith(
			(pi) =>
				pi.on("before_agent_start", (event, ctx) => {
					seenPrompts.push(event.systemPrompt, ctx.getSystemPrompt());
					return {
						systemPrompt: `${event.systemPrompt} +A`,
						message: { customType: "a", content: "from a", display: true },
					};
				}),
			(pi) =>
				pi.on("before_agent_start", (event, ctx) => {
					seenPrompts.push(event.systemPrompt, ctx.getSystemPrompt());
					return { message: { customType: "b", content: null as never, display: false, details: { n: 1 } } };
				}),
			(pi) => pi.on("before_agent_start", (event) => ({ systemPrompt: `${event.systemPrompt} +C` })),
		);
		const result = await runner.emitBeforeAgentStart("do it", [image], "SYS", options(), { trigger: "user" });
		expect(result).toEqual({
			messages: [
				{ customType: "a", content: "from a", display: true },
				{ customType: "b", content: [], display: false, details: { n: 1 } },
			],
			systemPrompt: "SYS +A +C",
		});
		expect(seenPrompts).toEqual(["SYS", "SYS", "SYS +A", "SYS +A"]);
	});

	it("hands every handler the same mutable systemPromptOptions object", async () => {
		const { runner } = await runnerWith(
			(pi) =>
				pi.on("before_agent_start", (event) => {
					event.systemPromptOptions.selectedTools = [...(event.systemPromptOptions.selectedTools ?? []), "grep"];
				}),
			(pi) =>
				pi.on("before_agent_start", (event) => {
					event.systemPromptOptions.appendSystemPrompt = `tools: ${event.systemPromptOptions.selectedTools?.join(",")}`;
				}),
		);
		const opts = options();
		await runner.emitBeforeAgentStart("p", undefined, "SYS", opts);
		expect(opts).toEqual({ cwd: "/repo", selectedTools: ["read", "grep"], appendSystemPrompt: "tools: read,grep" });
	});

	it("passes prompt, images and newer fields", async () => {
		const events: unknown[] = [];
		const { runner } = await runnerWith((pi) => pi.on("before_agent_start", (event) => void events.push({ ...event })));
		const opts = options();
		await runner.emitBeforeAgentStart("p", [image], "SYS", opts, { trigger: "user", messageType: "prompt" });
		expect(events).toEqual([
			{
				type: "before_agent_start",
				prompt: "p",
				images: [image],
				systemPrompt: "SYS",
				systemPromptOptions: opts,
				trigger: "user",
				messageType: "prompt",
			},
		]);
	});
});

describe("emitContext", () => {
	it("returns the very same array without handlers (no copy on the hot path)", async () => {
		const { runner } = await runnerWith((pi) => pi.on("agent_start", () => {}));
		const messages: AgentMessage[] = [user("a")];
		expect(await runner.emitContext(messages)).toBe(messages);
	});

	it("gives handlers their own deep copy, so in-place changes never touch the transcript", async () => {
		const transcript: AgentMessage[] = [user("a"), assistant("b")];
		const snapshot = structuredClone(transcript);
		const { runner } = await runnerWith((pi) =>
			pi.on("context", (event) => {
				(event.messages[0] as UserMessage).content = "edited";
				event.messages.pop();
			}),
		);
		const result = await runner.emitContext(transcript);
		expect(transcript).toEqual(snapshot);
		expect(result).toEqual([{ ...user("a"), content: "edited" }]);
		expect(result[0]).not.toBe(transcript[0]);
	});

	it("chains returned message lists", async () => {
		const { runner } = await runnerWith(
			(pi) => pi.on("context", (event) => ({ messages: [...event.messages, user("added")] })),
			(pi) => pi.on("context", (event) => ({ messages: event.messages.slice(1) })),
		);
		expect(await runner.emitContext([user("a"), user("b")])).toEqual([user("b"), user("added")]);
	});

	it("hides system messages from context handlers and restores them at their positions", async () => {
		const seen: string[][] = [];
		const { runner } = await runnerWith((pi) =>
			pi.on("context", (event) => {
				seen.push(event.messages.map((m) => m.role));
				return { messages: event.messages.map((m) => (m.role === "user" ? { ...m, content: "x" } : m)) };
			}),
		);
		const result = await runner.emitContext([system("base"), user("a"), system("patch"), assistant("b"), user("c")]);
		expect(seen).toEqual([["user", "assistant", "user"]]);
		expect(result.map((m) => m.role)).toEqual(["system", "user", "system", "assistant", "user"]);
		expect((result[0] as SystemMessage).content).toBe("base");
		expect((result[1] as UserMessage).content).toBe("x");
	});

	it("keeps system messages whose neighbours a handler dropped, at the end", async () => {
		const { runner } = await runnerWith((pi) => pi.on("context", () => ({ messages: [user("only")] })));
		const result = await runner.emitContext([system("s0"), user("a"), user("b"), system("s1"), user("c")]);
		expect(result.map((m) => (m.role === "system" ? (m as SystemMessage).content : m.role))).toEqual([
			"s0",
			"user",
			"s1",
		]);
	});

	it("runs context_with_system handlers on the whole transcript after context handlers", async () => {
		const transcript: AgentMessage[] = [system("base"), user("a")];
		const seen: string[][] = [];
		const { runner } = await runnerWith(
			(pi) => pi.on("context", () => ({ messages: [user("from context")] })),
			(pi) =>
				pi.on("context_with_system", (event) => {
					seen.push(event.messages.map((m) => m.role));
					(event.messages[0] as SystemMessage).content = "changed";
				}),
		);
		const result = await runner.emitContext(transcript);
		expect(seen).toEqual([["system", "user"]]);
		expect((result[0] as SystemMessage).content).toBe("changed");
		expect((transcript[0] as SystemMessage).content).toBe("base");
	});

	it("reports a non-array messages result and keeps the previous list", async () => {
		const { runner, errors } = await runnerWith((pi) => pi.on("context", () => ({ messages: "nope" as never })));
		expect(await runner.emitContext([user("a")])).toEqual([user("a")]);
		expect(errors.map((e) => e.event)).toEqual(["context"]);
	});
});

describe("emitMessageEnd", () => {
	it("resolves undefined when nothing replaced the message", async () => {
		const { runner } = await runnerWith((pi) => pi.on("message_end", () => undefined));
		expect(await runner.emitMessageEnd({ type: "message_end", message: user("a") })).toBeUndefined();
	});

	it("chains replacements: later handlers see the earlier replacement", async () => {
		const seen: unknown[] = [];
		const { runner } = await runnerWith(
			(pi) => pi.on("message_end", () => ({ message: assistant("first") })),
			(pi) =>
				pi.on("message_end", (event) => {
					seen.push(event.message);
					return { message: assistant("second") };
				}),
		);
		expect(await runner.emitMessageEnd({ type: "message_end", message: assistant("orig") })).toEqual(
			assistant("second"),
		);
		expect(seen).toEqual([assistant("first")]);
	});

	it("reports and ignores a replacement with another role", async () => {
		const { runner, errors } = await runnerWith(
			(pi) => pi.on("message_end", () => ({ message: user("wrong role") })),
			(pi) => pi.on("message_end", (event) => ({ message: { ...event.message, timestamp: 99 } as AgentMessage })),
		);
		expect(await runner.emitMessageEnd({ type: "message_end", message: assistant("orig") })).toEqual({
			...assistant("orig"),
			timestamp: 99,
		});
		expect(withoutStacks(errors)).toEqual([
			{ extensionPath: "<inline:1>", event: "message_end", error: MESSAGE_END_ROLE_MESSAGE },
		]);
	});

	it("normalizes null or missing content of a replacement to []", async () => {
		const { runner } = await runnerWith((pi) =>
			pi.on("message_end", () => ({ message: { role: "user", content: null, timestamp: 5 } as never })),
		);
		expect(await runner.emitMessageEnd({ type: "message_end", message: user("a") })).toEqual({
			role: "user",
			content: [],
			timestamp: 5,
		});
	});
});

describe("emitToolCall", () => {
	const call = (input: Record<string, unknown>) =>
		({ type: "tool_call", toolName: "bash", toolCallId: "c1", input }) as const;

	it("lets handlers mutate the input in place, later handlers seeing it", async () => {
		const seen: unknown[] = [];
		const { runner } = await runnerWith(
			(pi) =>
				pi.on("tool_call", (event) => {
					if (isToolCallEventType("bash", event)) event.input.command = `set -e; ${event.input.command}`;
				}),
			(pi) => pi.on("tool_call", (event) => void seen.push(event.input as { command: string })),
		);
		const input = { command: "ls" };
		expect(await runner.emitToolCall(call(input) as never)).toBeUndefined();
		expect(input).toEqual({ command: "set -e; ls" });
		expect(seen).toEqual([{ command: "set -e; ls" }]);
	});

	it("stops at the first block", async () => {
		const seen: string[] = [];
		const { runner } = await runnerWith(
			(pi) => pi.on("tool_call", () => ({ block: false, reason: "first opinion" })),
			(pi) => pi.on("tool_call", () => ({ block: true, reason: "no", terminate: true })),
			(pi) =>
				pi.on("tool_call", () => {
					seen.push("not reached");
					return { block: true, reason: "later" };
				}),
		);
		expect(await runner.emitToolCall(call({}) as never)).toEqual({ block: true, reason: "no", terminate: true });
		expect(seen).toEqual([]);
	});

	it("returns the last non-undefined result when nothing blocks", async () => {
		const { runner } = await runnerWith(
			(pi) => pi.on("tool_call", () => ({ reason: "a" })),
			(pi) => pi.on("tool_call", () => ({ reason: "b" })),
			(pi) => pi.on("tool_call", () => undefined),
		);
		expect(await runner.emitToolCall(call({}) as never)).toEqual({ reason: "b" });
	});

	it("propagates an Error thrown by a handler, and wraps non-Error values in pi's text", async () => {
		const failing = await runnerWith((pi) =>
			pi.on("tool_call", () => {
				throw new TypeError("handler bug");
			}),
		);
		await expect(failing.runner.emitToolCall(call({}) as never)).rejects.toThrow(new TypeError("handler bug"));
		expect(failing.errors).toEqual([]);

		const throwingValue = await runnerWith((pi) =>
			pi.on("tool_call", async () => {
				throw { code: 7 };
			}),
		);
		await expect(throwingValue.runner.emitToolCall(call({}) as never)).rejects.toThrow(
			"Extension failed, blocking execution: [object Object]",
		);
		const throwingString = await runnerWith((pi) =>
			pi.on("tool_call", () => {
				throw "nope";
			}),
		);
		await expect(throwingString.runner.emitToolCall(call({}) as never)).rejects.toThrow(
			"Extension failed, blocking execution: nope",
		);
	});
});

describe("emitToolResult", () => {
	const base = {
		type: "tool_result",
		toolName: "read",
		toolCallId: "c1",
		input: { path: "a" },
		content: [{ type: "text", text: "orig" }],
		details: { lines: 1 },
		isError: false,
	} as const;

	it("resolves undefined when no handler changed anything", async () => {
		const { runner } = await runnerWith(
			(pi) => pi.on("tool_result", () => undefined),
			(pi) => pi.on("tool_result", () => ({})),
		);
		expect(await runner.emitToolResult({ ...base, content: [...base.content] } as never)).toBeUndefined();
	});

	it("chains overrides field by field", async () => {
		const seen: unknown[] = [];
		const usage = { ...emptyUsage(), input: 3 };
		const { runner } = await runnerWith(
			(pi) => pi.on("tool_result", () => ({ content: [{ type: "text", text: "redacted" }] })),
			(pi) =>
				pi.on("tool_result", (event) => {
					seen.push(event.content, event.details);
					return { isError: true, usage };
				}),
			(pi) => pi.on("tool_result", () => ({ details: { replaced: true } })),
		);
		expect(await runner.emitToolResult({ ...base } as never)).toEqual({
			content: [{ type: "text", text: "redacted" }],
			details: { replaced: true },
			isError: true,
			usage,
		});
		expect(seen).toEqual([[{ type: "text", text: "redacted" }], { lines: 1 }]);
	});
});

describe("provider hooks", () => {
	it("before_provider_request: non-undefined results replace the payload (chain)", async () => {
		const seen: unknown[] = [];
		const model = { id: "m" } as never;
		const { runner } = await runnerWith(
			(pi) => pi.on("before_provider_request", (event) => ({ ...(event.payload as object), a: 1 })),
			(pi) =>
				pi.on("before_provider_request", (event) => {
					seen.push(event.payload, event.model);
					return undefined;
				}),
		);
		expect(await runner.emitBeforeProviderRequest({ x: 0 }, { model })).toEqual({ x: 0, a: 1 });
		expect(seen).toEqual([{ x: 0, a: 1 }, model]);
		expect(await (await runnerWith()).runner.emitBeforeProviderRequest("same")).toBe("same");
	});

	it("before_provider_headers: handlers mutate a copy; null deletes a header", async () => {
		const { runner } = await runnerWith(
			(pi) =>
				pi.on("before_provider_headers", (event) => {
					event.headers["x-trace"] = "1";
					event.headers.authorization = null;
				}),
			(pi) =>
				pi.on("before_provider_headers", (event) => {
					event.headers["x-seen"] = String(event.headers["x-trace"]);
				}),
		);
		const headers = { authorization: "Bearer k", accept: "json" };
		expect(await runner.emitBeforeProviderHeaders(headers)).toEqual({ accept: "json", "x-trace": "1", "x-seen": "1" });
		expect(headers).toEqual({ authorization: "Bearer k", accept: "json" });
	});
});

describe("emitUserBash", () => {
	const event = { type: "user_bash", command: "ls", excludeFromContext: false, cwd: "/repo" } as const;

	it("returns the first non-undefined result", async () => {
		const result = { output: "done", exitCode: 0, cancelled: false, truncated: false };
		const { runner } = await runnerWith(
			(pi) => pi.on("user_bash", () => undefined),
			(pi) => pi.on("user_bash", () => ({ result })),
			(pi) => pi.on("user_bash", () => ({ result: { ...result, output: "later" } })),
		);
		expect(await runner.emitUserBash(event)).toEqual({ result });
	});

	it("fails closed: a throwing handler is reported and the dispatch rejects", async () => {
		const seen: string[] = [];
		const { runner, errors } = await runnerWith(
			(pi) =>
				pi.on("user_bash", () => {
					throw new Error("vm unreachable");
				}),
			(pi) =>
				pi.on("user_bash", () => {
					seen.push("later");
					return undefined;
				}),
		);
		await expect(runner.emitUserBash(event)).rejects.toThrow(
			"The user_bash handler of <inline:1> failed (vm unreachable), so the command was not run.",
		);
		expect(withoutStacks(errors)).toEqual([
			{ extensionPath: "<inline:1>", event: "user_bash", error: "vm unreachable" },
		]);
		expect(seen).toEqual([]);
	});
});

describe("emitResourcesDiscover", () => {
	it("collects paths of all handlers with the contributing extension", async () => {
		const reasons: string[] = [];
		const { runner, errors } = await runnerWith(
			(pi) =>
				pi.on("resources_discover", (event) => {
					reasons.push(`${event.cwd}:${event.reason}`);
					return { skillPaths: ["/s1"], promptPaths: ["/p1"] };
				}),
			(pi) =>
				pi.on("resources_discover", () => ({
					skillPaths: [{ path: "/s2", metadata: { source: "pkg" } }, 42 as never],
					themePaths: ["/t1"],
				})),
		);
		expect(await runner.emitResourcesDiscover("/repo", "reload")).toEqual({
			skillPaths: [
				{ path: "/s1", extensionPath: "<inline:1>" },
				{ path: "/s2", extensionPath: "<inline:2>", metadata: { source: "pkg" } },
			],
			promptPaths: [{ path: "/p1", extensionPath: "<inline:1>" }],
			themePaths: [{ path: "/t1", extensionPath: "<inline:2>" }],
		});
		expect(reasons).toEqual(["/repo:reload"]);
		expect(errors.map((e) => e.error)).toEqual([
			"A resources_discover handler returned an invalid entry in skillPaths: 42",
		]);
	});
});
