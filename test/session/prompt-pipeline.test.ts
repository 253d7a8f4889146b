/**
 * The prompt pipeline (behavior C.1) through `session.prompt()`: commands, the input hook,
 * expansion, busy rules with pi's texts, model and auth checks, before_agent_start, next-turn
 * messages, dispositions, and prompts deferred from agent_settled handlers.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import type { PromptDisposition } from "../../src/session/agent-session.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { createSyntheticSourceInfo } from "../../src/tools/registry.js";
import { roles, tick } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

/** A reply that waits until `release()` — keeps an operation busy for as long as a test needs. */
function gate() {
	let release!: () => void;
	const opened = new Promise<void>((resolve) => {
		release = resolve;
	});
	return {
		release,
		step: async () => {
			await opened;
			return fauxAssistantMessage("released");
		},
	};
}

function lastUserText(context: Context): string {
	const user = context.messages.findLast((message) => message.role === "user");
	if (!user) return "";
	return typeof user.content === "string"
		? user.content
		: user.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe("extension commands", () => {
	it("a command consumes the input: handled, no user message, no model call", async () => {
		const calls: string[] = [];
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => pi.registerCommand("deploy", { handler: async (args) => void calls.push(args) }),
			],
		});
		const dispositions: PromptDisposition[] = [];
		await h.session.prompt("/deploy staging now", { preflightResult: (d) => dispositions.push(d) });
		expect(calls).toEqual(["staging now"]);
		expect(dispositions).toEqual(["handled"]);
		expect(h.faux.callCount).toBe(0);
		expect(h.session.messages).toEqual([]);
		expect(h.eventsOfType("agent_settled")).toEqual([]);
	});

	it("runs even while streaming, and a throwing command still counts as handled", async () => {
		const g = gate();
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.registerCommand("boom", {
						handler: () => {
							throw new Error("kaboom");
						},
					}),
			],
		});
		h.setResponses([g.step]);
		const running = h.session.prompt("work");
		// Wait for the run to reach the gated model call (a fixed sleep is not enough on a loaded machine).
		while (h.session.lifecycle !== "running.working") await tick();
		expect(h.session.isStreaming).toBe(true);
		const dispositions: PromptDisposition[] = [];
		await h.session.prompt("/boom", { preflightResult: (d) => dispositions.push(d) });
		expect(dispositions).toEqual(["handled"]);
		expect(h.extensionErrors).toContainEqual(
			expect.objectContaining({ extensionPath: "command:boom", event: "command" }),
		);
		g.release();
		await running;
	});

	it("ctx.waitForIdle() inside a command resolves (the command is part of the wait), then prompts", async () => {
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.registerCommand("later", {
						handler: async (args, ctx) => {
							await ctx.waitForIdle();
							pi.sendUserMessage(`do ${args}`);
						},
					}),
			],
		});
		h.setResponses([fauxAssistantMessage("done")]);
		await h.session.prompt("/later the thing");
		await h.session.waitForIdle();
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant"]);
		expect(h.session.messages[1]).toMatchObject({ content: [{ text: "do the thing" }] });
	});

	it("steer() and followUp() refuse extension commands with pi's text", async () => {
		h = await createHarness({
			extensionFactories: [(pi: ExtensionAPI) => pi.registerCommand("deploy", { handler: () => {} })],
		});
		await expect(h.session.steer("/deploy now")).rejects.toThrow(
			'Extension command "/deploy" cannot be queued. Use prompt() or execute the command when not streaming.',
		);
		await expect(h.session.followUp("/deploy")).rejects.toThrow(/cannot be queued/);
	});
});

describe("input hook", () => {
	it("transform chains across handlers and keeps images unless replaced", async () => {
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => pi.on("input", (event) => ({ action: "transform", text: `${event.text} [a]` })),
				(pi: ExtensionAPI) => pi.on("input", (event) => ({ action: "transform", text: `${event.text} [b]` })),
			],
		});
		let seen = "";
		h.setResponses([
			(context) => {
				seen = lastUserText(context);
				return fauxAssistantMessage("ok");
			},
		]);
		const image = {
			type: "image" as const,
			data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
			mimeType: "image/png",
		};
		await h.session.prompt("hello", { images: [image] });
		expect(seen).toBe("hello [a] [b]");
		const user = h.session.messages.find((message) => message.role === "user");
		expect(user?.role === "user" && Array.isArray(user.content) ? user.content : []).toContainEqual(image);
	});

	it("handled stops the prompt: no model call, disposition handled", async () => {
		const sources: string[] = [];
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("input", (event) => {
						sources.push(event.source);
						return event.text === "open panel" ? { action: "handled" } : undefined;
					}),
			],
		});
		const dispositions: PromptDisposition[] = [];
		await h.session.prompt("open panel", { preflightResult: (d) => dispositions.push(d) });
		expect(dispositions).toEqual(["handled"]);
		expect(h.faux.callCount).toBe(0);
		await h.session.sendUserMessage("from an extension");
		expect(sources).toEqual(["interactive", "extension"]);
	});
	it("is told the streamingBehavior only while streaming (how a busy prompt will be queued)", async () => {
		const seen: string[] = [];
		const g = gate();
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => pi.on("input", (event) => void seen.push(`${event.text}:${event.streamingBehavior}`)),
			],
		});
		h.setResponses([g.step, fauxAssistantMessage("after the queue")]);
		const running = h.session.prompt("first", { streamingBehavior: "steer" });
		while (h.session.lifecycle !== "running.working") await tick();
		await h.session.prompt("second", { streamingBehavior: "followUp" });
		await h.session.prompt("third", { streamingBehavior: "steer" });
		g.release();
		await running;
		expect(seen).toEqual(["first:undefined", "second:followUp", "third:steer"]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});
});

describe("expansion", () => {
	it("expands /skill:name and prompt templates before the model sees the text", async () => {
		const skillDir = join(mkdtempSync(join(tmpdir(), "settle-skill-")), "review");
		mkdirSync(skillDir, { recursive: true });
		const skillFile = join(skillDir, "SKILL.md");
		writeFileSync(skillFile, "---\nname: review\ndescription: Reviews code\n---\nCheck the tests first.\n");
		h = await createHarness({
			resources: {
				skills: [
					{
						name: "review",
						description: "Reviews code",
						filePath: skillFile,
						baseDir: skillDir,
						sourceInfo: createSyntheticSourceInfo(skillFile, { source: "local" }),
						disableModelInvocation: false,
					},
				],
				prompts: [
					{
						name: "explain",
						description: "Explain a file",
						content: "Explain this code: $1",
						filePath: "/prompts/explain.md",
						sourceInfo: createSyntheticSourceInfo("/prompts/explain.md", { source: "local" }),
					},
				],
			},
		});
		const seen: string[] = [];
		h.setResponses([
			(context) => {
				seen.push(lastUserText(context));
				return fauxAssistantMessage("1");
			},
			(context) => {
				seen.push(lastUserText(context));
				return fauxAssistantMessage("2");
			},
		]);
		await h.session.prompt("/explain src/index.ts");
		await h.session.prompt("/skill:review src/a.ts");
		expect(seen[0]).toBe("Explain this code: src/index.ts");
		expect(seen[1]).toBe(
			`<skill name="review" location="${skillFile}">\nReferences are relative to ${skillDir}.\n\nCheck the tests first.\n</skill>\n\nsrc/a.ts`,
		);
		rmSync(dirname(skillDir), { recursive: true, force: true });
	});
});

describe("busy rules", () => {
	it("rejects a prompt without streamingBehavior while streaming, with pi's text; queues with it", async () => {
		const g = gate();
		h = await createHarness();
		h.setResponses([g.step, fauxAssistantMessage("after follow-up")]);
		const running = h.session.prompt("first");
		while (h.session.lifecycle !== "running.working") await tick();
		await expect(h.session.prompt("second")).rejects.toThrow(
			"Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.",
		);
		const dispositions: PromptDisposition[] = [];
		await h.session.prompt("second", { streamingBehavior: "followUp", preflightResult: (d) => dispositions.push(d) });
		expect(dispositions).toEqual(["queued"]);
		expect(h.session.pendingMessageCount).toBe(1);
		g.release();
		await running;
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "user", "assistant"]);
		expect(h.session.pendingMessageCount).toBe(0);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});

	it("rejects without a model and without auth, with pi's texts and typed codes; nothing starts", async () => {
		h = await createHarness({ withConfiguredAuth: false });
		const rejection = await h.session.prompt("hi").catch((error: unknown) => error);
		expect(rejection).toBeInstanceOf(SettleError);
		expect((rejection as SettleError).code).toBe("NO_AUTH");
		expect((rejection as SettleError).message).toMatch(/^No API key found for faux\./);
		expect(h.faux.callCount).toBe(0);
		expect(h.eventsOfType("agent_settled")).toEqual([]);
		expect(h.session.lifecycle).toBe("idle");

		h.modelRuntime.registerProvider({
			provider: "faux",
			models: h.faux.models,
			streamFn: h.faux.streamFn,
			oauth: true,
		});
		await expect(h.session.prompt("hi")).rejects.toThrow(
			`Authentication failed for "faux". Credentials may have expired or network is unavailable. Run '/login faux' to re-authenticate.`,
		);

		h.session.agent.state.model = { ...h.model, id: "unknown", provider: "unknown" };
		const noModel = await h.session.prompt("hi").catch((error: unknown) => error);
		expect((noModel as SettleError).code).toBe("NO_MODEL");
		expect((noModel as SettleError).message).toMatch(/^No model selected\./);
	});
});

describe("before_agent_start and next-turn messages", () => {
	it("custom messages follow the user message; next-turn messages come first; all reach the model", async () => {
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("before_agent_start", (event) => ({
						message: { customType: "context", content: `about: ${event.prompt}`, display: false },
					})),
			],
		});
		await h.session.sendCustomMessage(
			{ customType: "note", content: "queued for later", display: true },
			{ deliverAs: "nextTurn" },
		);
		expect(h.session.messages).toEqual([]);
		let request: Context | undefined;
		h.setResponses([
			(context) => {
				request = context;
				return fauxAssistantMessage("ok");
			},
		]);
		await h.session.prompt("hello");
		expect(roles(h.session.messages)).toEqual(["system", "user", "custom", "custom", "assistant"]);
		expect(h.session.messages.slice(2, 4)).toMatchObject([
			{ customType: "note" },
			{ customType: "context", content: "about: hello" },
		]);
		expect(request?.messages.map((message) => message.role)).toEqual(["user", "user", "user"]);
		const customEntries = h.sessionManager.getEntries().filter((entry) => entry.type === "custom_message");
		expect(customEntries.map((entry) => (entry.type === "custom_message" ? entry.customType : ""))).toEqual([
			"note",
			"context",
		]);
	});

	it("a returned systemPrompt applies to this operation's requests only and is never persisted", async () => {
		let override = true;
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("before_agent_start", () => (override ? { systemPrompt: "You are a pirate." } : undefined)),
			],
		});
		const prompts: (string | undefined)[] = [];
		const record = (context: Context) => {
			prompts.push(context.systemPrompt);
			return fauxAssistantMessage("ok");
		};
		h.setResponses([record, record]);
		await h.session.prompt("first");
		override = false;
		await h.session.prompt("second");
		expect(prompts[0]).toBe("You are a pirate.");
		expect(prompts[1]).toContain("You are a test assistant.");
		expect(JSON.stringify(h.sessionManager.getEntries())).not.toContain("pirate");
	});
});

describe("an abort during a prompt's own hooks", () => {
	for (const hook of ["input", "before_agent_start"] as const) {
		it(`abort() while its ${hook} handler runs: preflightResult says "aborted" (nothing sent or saved), not "started"`, async () => {
			let release!: () => void;
			const gate = new Promise<void>((resolve) => {
				release = resolve;
			});
			let entered!: () => void;
			const inHook = new Promise<void>((resolve) => {
				entered = resolve;
			});
			h = await createHarness({
				persistence: "disk",
				extensionFactories: [
					(pi: ExtensionAPI) =>
						pi.on(hook, async () => {
							entered();
							await gate;
							return undefined;
						}),
				],
			});
			h.setResponses([fauxAssistantMessage("never asked")]);
			const dispositions: PromptDisposition[] = [];
			const prompted = h.session.prompt("fix the build", { preflightResult: (d) => dispositions.push(d) });
			await inHook;
			const aborting = h.session.abort();
			release();
			await aborting;
			await prompted;
			expect(dispositions).toEqual(["aborted"]);
			expect(h.session.messages).toEqual([]);
			h.setResponses([fauxAssistantMessage("answered")]);
			const next: PromptDisposition[] = [];
			await h.session.prompt("fix the build", { preflightResult: (d) => next.push(d) });
			expect(next).toEqual(["started"]);
			expect(roles(h.session.messages).slice(-2)).toEqual(["user", "assistant"]);
		});
	}
});

describe("before_agent_start for a custom message that triggers a turn (pi#5581, pi#8773)", () => {
	it("runs once for the triggered operation: its system prompt holds through tool continuations, its message is added once", async () => {
		const seen: unknown[] = [];
		h = await createHarness({
			initialActiveToolNames: ["ls"],
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("before_agent_start", (event) => {
						seen.push({ prompt: event.prompt, trigger: event.trigger, messageType: event.messageType });
						return {
							systemPrompt: `${event.systemPrompt} [start ${seen.length}]`,
							message: { customType: "context", content: `context ${seen.length}`, display: false },
						};
					}),
			],
		});
		const prompts: (string | undefined)[] = [];
		const record = (answer: Parameters<typeof fauxAssistantMessage>[0], stop?: "toolUse") => (context: Context) => {
			prompts.push(context.systemPrompt);
			return fauxAssistantMessage(answer, stop ? { stopReason: stop } : {});
		};
		h.setResponses([record([fauxToolCall("ls", {})], "toolUse"), record("done")]);
		await h.session.sendCustomMessage(
			{ customType: "wake", content: "subagent finished", display: true },
			{ triggerTurn: true },
		);
		await h.session.waitForIdle();
		expect(seen).toEqual([{ prompt: "subagent finished", trigger: "custom_message", messageType: "wake" }]);
		expect(prompts).toHaveLength(2);
		for (const prompt of prompts) expect(prompt).toMatch(/ \[start 1\]$/);
		const customs = h.session.messages.flatMap((message) =>
			message.role === "custom" ? [`${message.customType}: ${message.content}`] : [],
		);
		expect(customs).toEqual(["wake: subagent finished", "context: context 1"]);
		expect(roles(h.session.messages)).toEqual(["system", "custom", "custom", "assistant", "toolResult", "assistant"]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(JSON.stringify(h.sessionManager.getEntries())).not.toContain("[start 1]");
	});

	it("a handler that sends its own triggerTurn message on every start cannot chain operations forever", async () => {
		let starts = 0;
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("before_agent_start", (event) => {
						starts++;
						// Capped so that a missing guard fails this test instead of looping until the runner's timeout.
						if (starts > 5) return undefined;
						pi.sendMessage(
							{ customType: "reminder", content: `reminder after ${event.prompt}`, display: true },
							{ triggerTurn: true },
						);
						return undefined;
					}),
			],
		});
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two"), fauxAssistantMessage("three")]);
		await h.session.prompt("hello");
		await h.session.waitForIdle();
		// The reminder's own operation skips before_agent_start, so it sends no further reminder.
		expect(starts).toBe(1);
		expect(h.faux.callCount).toBe(2);
		expect(h.getPendingResponseCount()).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "custom", "assistant"]);
	});
});

describe("agent_settled", () => {
	it("exactly one per operation; a prompt issued from an agent_settled handler is deferred until that dispatch completes", async () => {
		const order: string[] = [];
		let once = true;
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("agent_settled", async (_event, ctx) => {
						order.push(`settled handler (idle=${ctx.isIdle()})`);
						if (once) {
							once = false;
							pi.sendUserMessage("follow-up from handler");
							await new Promise((resolve) => setTimeout(resolve, 5));
							order.push("handler done");
						}
					}),
			],
		});
		h.session.subscribe((event) => {
			if (event.type === "agent_settled") order.push("public agent_settled");
			if (event.type === "agent_start") order.push("agent_start");
		});
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("first");
		await h.session.waitForIdle();
		expect(order).toEqual([
			"agent_start",
			"settled handler (idle=true)",
			"handler done",
			"public agent_settled",
			"agent_start",
			"settled handler (idle=true)",
			"public agent_settled",
		]);
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "user", "assistant"]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
	});
});
