/**
 * The differences the extension-API differential (pi-differential.property.test.ts) keeps out of
 * its generator, each pinned here on both peers so a change on either side shows: documented Settle
 * behaviour (the spec's doc version) where pi 0.73.1 differs, and pi 0.73.1 bugs.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { eventSequence, fileMessages } from "../parity/normalize.js";
import { onBothPeers, type SharedExtension } from "../parity/peers.js";
import { programTools } from "./pi-differential-program.js";

function echoCall(id: string) {
	return { toolCalls: [{ id, name: "echo", args: { text: id } }] };
}

describe("extension differential: named differences with pi 0.73.1", () => {
	it("a command name two extensions register: Settle refuses plain `/shared` and sends nothing (pi#1061), pi 0.73.1 sends it to the model", async () => {
		const sharing =
			(name: string): SharedExtension =>
			(api: ExtensionAPI) => {
				api.registerCommand("shared", { description: name, handler: async () => undefined });
			};
		const { pi, settle } = await onBothPeers({ extensions: [sharing("one"), sharing("two")] }, async (peer) => {
			peer.script([{ text: "answered" }]);
			await peer.prompt("/shared arg");
			await peer.quiesce();
			return {
				prompts: eventSequence(peer.recorded).filter((token) => token.startsWith("<<prompt ")),
				requests: peer.requests.length,
			};
		});
		expect(pi).toEqual({ prompts: ["<<prompt resolved: /shared arg>>"], requests: 1 });
		expect(settle.requests).toBe(0);
		expect(settle.prompts).toHaveLength(1);
		expect(settle.prompts[0]).toMatch(/^<<prompt rejected: \/shared arg: .*\/shared:1.*\/shared:2/s);
	});

	it("input during a run: Settle passes streamingBehavior (behavior B.3, doc version), pi 0.73.1 never does", async () => {
		const seen: Record<string, unknown[]> = { pi: [], settle: [] };
		const extension =
			(log: unknown[]): SharedExtension =>
			(api: ExtensionAPI) => {
				let sent = false;
				api.on("input", (event) => void log.push({ text: event.text, streamingBehavior: event.streamingBehavior }));
				api.on("context", () => {
					if (sent) return undefined;
					sent = true;
					api.sendUserMessage("queued from context", { deliverAs: "followUp" });
					return undefined;
				});
			};
		const { pi, settle } = await onBothPeers(
			(name) => ({ extensions: [extension(seen[name] ?? [])] }),
			async (peer) => {
				peer.script([{ text: "first" }, { text: "second" }]);
				await peer.prompt("question");
				await peer.quiesce();
				return { requests: peer.requests.map((request) => request.messages), input: seen[peer.name] };
			},
		);
		expect(settle.requests).toEqual(pi.requests);
		expect(pi.input).toEqual([
			{ text: "question", streamingBehavior: undefined },
			{ text: "queued from context", streamingBehavior: undefined },
		]);
		expect(settle.input).toEqual([
			{ text: "question", streamingBehavior: undefined },
			{ text: "queued from context", streamingBehavior: "followUp" },
		]);
	});

	it("setActiveTools during a run: Settle applies it to the next request (behavior F.1 step 6), pi 0.73.1 to the next run", async () => {
		const extension: SharedExtension = (api: ExtensionAPI) => {
			api.on("tool_result", () => {
				api.setActiveTools(["echo"]);
				return undefined;
			});
		};
		const { pi, settle } = await onBothPeers({ extensions: [extension], customTools: programTools() }, async (peer) => {
			peer.script([echoCall("call-1"), { text: "done" }, { text: "again" }]);
			await peer.prompt("first");
			await peer.prompt("second");
			await peer.quiesce();
			return peer.requests.map((request) => request.tools);
		});
		const all = ["read", "bash", "edit", "write", "echo", "fail"];
		expect(pi).toEqual([all, all, ["echo"]]);
		expect(settle).toEqual([all, ["echo"], ["echo"]]);
	});

	it("ctx.abort() in a tool_call handler: Settle answers 'Operation aborted' (behavior F.4), pi 0.73.1 runs the tool", async () => {
		const extension: SharedExtension = (api: ExtensionAPI) => {
			api.on("tool_call", (_event, ctx) => {
				ctx.abort();
				return undefined;
			});
		};
		const { pi, settle } = await onBothPeers({ extensions: [extension], customTools: programTools() }, async (peer) => {
			peer.script([echoCall("call-1"), { text: "unused" }]);
			await peer.prompt("run echo");
			await peer.quiesce();
			const results = peer.fileEntries().flatMap((entry) => {
				const message = entry.message as
					| { role?: string; content?: { text?: string }[]; isError?: boolean }
					| undefined;
				return entry.type === "message" && message?.role === "toolResult"
					? [{ text: message.content?.[0]?.text, isError: message.isError }]
					: [];
			});
			return results;
		});
		expect(pi).toEqual([{ text: "echoed: call-1", isError: false }]);
		expect(settle).toEqual([{ text: "Operation aborted", isError: true }]);
	});

	it("pi 0.73.1 bug: a compaction cut at an extension's model_change entry is summarized as a split turn with no history", async () => {
		const extension: SharedExtension = (api: ExtensionAPI) => {
			api.registerCommand("same-model", {
				description: "Sets the current model again",
				handler: async (_args, ctx) => {
					if (ctx.model) await api.setModel(ctx.model);
				},
			});
		};
		const { pi, settle } = await onBothPeers(
			{
				extensions: [extension],
				settings: { compaction: { enabled: false, reserveTokens: 16384, keepRecentTokens: 5 } },
			},
			async (peer) => {
				peer.script([{ text: "answer 0" }, { text: "fallback 0" }, { text: "summary 1" }]);
				await peer.prompt("question 1");
				await peer.prompt("/same-model");
				await peer.prompt("question 2");
				await peer.session.compact();
				await peer.quiesce();
				const entries = peer.fileEntries().filter((entry) => {
					const role = (entry.message as { role?: string } | undefined)?.role;
					return role !== "system";
				});
				const compaction = entries.find((entry) => entry.type === "compaction");
				const kept = entries.find((entry) => entry.id === compaction?.firstKeptEntryId);
				return { kept: kept?.type, summary: compaction?.summary };
			},
		);
		// Both cut at the model_change entry right before the second turn's user message.
		expect(pi.kept).toBe("model_change");
		expect(settle.kept).toBe("model_change");
		expect(pi.summary).toBe("No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nsummary 1");
		expect(settle.summary).toBe("summary 1");
	});

	it("session_before_compact returning {} after another handler supplied the compaction: Settle keeps the supplied one (pi-goal-list-loop-audit#56), pi 0.73.1 discards it and summarizes", async () => {
		const extensions: SharedExtension[] = [
			(api: ExtensionAPI) => {
				api.on("session_before_compact", (event) => ({
					compaction: {
						summary: "supplied",
						firstKeptEntryId: event.preparation.firstKeptEntryId,
						tokensBefore: event.preparation.tokensBefore,
					},
				}));
			},
			(api: ExtensionAPI) => {
				api.on("session_before_compact", () => ({}));
			},
		];
		const { pi, settle } = await onBothPeers(
			{ extensions, settings: { compaction: { enabled: false, reserveTokens: 16384, keepRecentTokens: 5 } } },
			async (peer) => {
				peer.script([{ text: "answer 1" }, { text: "answer 2" }, { text: "summary 1" }, { text: "summary 2" }]);
				await peer.prompt("question 1");
				await peer.prompt("question 2");
				await peer.session.compact();
				await peer.quiesce();
				const compaction = peer.fileEntries().find((entry) => entry.type === "compaction");
				return {
					summary: compaction?.summary,
					summaryRequests: peer.requests.filter((r) => r.system === "summarizer").length,
				};
			},
		);
		expect(settle).toEqual({ summary: "supplied", summaryRequests: 0 });
		expect(pi.summary).not.toBe("supplied");
		expect(pi.summaryRequests).toBeGreaterThan(0);
	});

	it("before_provider_request on summarization requests: Settle runs it (pi#8999), pi 0.73.1 on turns only", async () => {
		const seen: Record<string, string[]> = { pi: [], settle: [] };
		const extension =
			(log: string[]): SharedExtension =>
			(api: ExtensionAPI) => {
				api.on("before_provider_request", (event) => {
					const prompt = String((event.payload as { systemPrompt?: unknown }).systemPrompt);
					log.push(prompt.startsWith("You are a context summarization assistant") ? "summary" : "turn");
					return undefined;
				});
			};
		const { pi, settle } = await onBothPeers(
			(name) => ({
				extensions: [extension(seen[name] ?? [])],
				payloadHook: true,
				settings: { compaction: { enabled: false, reserveTokens: 16384, keepRecentTokens: 5 } },
			}),
			async (peer) => {
				peer.script([{ text: "answer 1" }, { text: "answer 2" }, { text: "summary 1" }, { text: "summary 2" }]);
				await peer.prompt("question 1");
				await peer.prompt("question 2");
				await peer.session.compact();
				await peer.quiesce();
				const compactions = peer.fileEntries().filter((entry) => entry.type === "compaction");
				return { summaryRequests: peer.requests.filter((r) => r.system === "summarizer").length, compactions };
			},
		);
		expect(pi.compactions).toHaveLength(1);
		expect(settle.compactions).toHaveLength(1);
		expect(pi.summaryRequests).toBeGreaterThan(0);
		expect(seen.pi).toEqual(["turn", "turn"]);
		expect(seen.settle).toEqual(["turn", "turn", ...Array<string>(settle.summaryRequests).fill("summary")]);
	});

	it("a custom message that triggers a turn: Settle runs before_agent_start for it (pi#5581, pi#8773), pi 0.73.1 does not", async () => {
		const seen: Record<string, string[]> = { pi: [], settle: [] };
		const extension =
			(log: string[]): SharedExtension =>
			(api: ExtensionAPI) => {
				let starts = 0;
				api.on("before_agent_start", (event) => {
					starts++;
					log.push(`before_agent_start: ${event.prompt}`);
					return {
						systemPrompt: `${event.systemPrompt} [override ${starts}]`,
						message: { customType: "context", content: `context ${starts}`, display: false },
					};
				});
				api.on("context", (_event, ctx) => void log.push(`request: ${ctx.getSystemPrompt().slice(-12)}`));
				api.registerCommand("ping", {
					description: "Sends a custom message that triggers a turn",
					handler: async () =>
						api.sendMessage({ customType: "ping", content: "ping", display: true }, { triggerTurn: true }),
				});
			};
		const { pi, settle } = await onBothPeers(
			(name) => ({ extensions: [extension(seen[name] ?? [])] }),
			async (peer) => {
				peer.script([{ text: "one" }, { text: "two" }]);
				await peer.prompt("question");
				await peer.prompt("/ping");
				await peer.quiesce();
				return { requests: peer.requests.map((request) => request.messages) };
			},
		);
		// pi 0.73.1 skips the hook; the first operation's override lingers in its agent state instead.
		expect(seen.pi).toEqual(["before_agent_start: question", "request: [override 1]", "request: [override 1]"]);
		expect(seen.settle).toEqual([
			"before_agent_start: question",
			"request: [override 1]",
			"before_agent_start: ping",
			"request: [override 2]",
		]);
		expect(pi.requests[1]?.slice(3)).toEqual(["user: ping"]);
		expect(settle.requests[1]?.slice(3)).toEqual(["user: ping", "user: context 2"]);
	});
});

describe("extension differential: persistence order (behavior C.10)", () => {
	it("a session write from the input handler of a message queued mid-run: Settle files it after the running message, pi 0.73.1 before", async () => {
		const extension: SharedExtension = (api: ExtensionAPI) => {
			let sent = false;
			api.registerCommand("announce", {
				description: "Sends a custom message that starts a run",
				handler: async () =>
					api.sendMessage({ customType: "note", content: "announced", display: false }, { triggerTurn: true }),
			});
			api.on("context", () => {
				if (sent) return undefined;
				sent = true;
				// Fire-and-forget: this message's `input` handlers run while the run goes on.
				api.sendUserMessage("queued from context");
				return undefined;
			});
			api.on("input", () => {
				api.setSessionName("named mid-run");
				return undefined;
			});
		};
		const { pi, settle } = await onBothPeers({ extensions: [extension] }, async (peer) => {
			peer.script([{ text: "answer" }]);
			await peer.prompt("/announce");
			await peer.quiesce();
			const shapes = peer
				.fileEntries()
				.filter((entry) => !["session", "model_change", "thinking_level_change"].includes(String(entry.type)))
				.map((entry) =>
					entry.type === "message" ? `message:${(entry.message as { role: string }).role}` : String(entry.type),
				)
				// Settle files the run's system prompt as a `system` baseline record; pi has no such entry.
				.filter((shape) => shape !== "message:system");
			return {
				shapes,
				events: eventSequence(peer.recorded).filter((type) => /session_info|message_(start|end)/.test(type)),
			};
		});
		// Settle persists each event before the loop goes on (its awaited bridge), so the custom message
		// that started the run is on file, and announced, before anything a later hook causes; pi 0.73.1
		// persists from a queue it does not await, and the fire-and-forget chain gets there first. (The
		// queued message itself is rejected on both: the session is busy and it names no streamingBehavior.)
		expect(settle.shapes).toEqual(["custom_message", "session_info", "message:assistant"]);
		expect(pi.shapes).toEqual(["session_info", "custom_message", "message:assistant"]);
		const run = ["message_start(assistant)", "message_end(assistant)"];
		expect(settle.events).toEqual(["message_start(custom)", "message_end(custom)", "session_info_changed", ...run]);
		expect(pi.events).toEqual(["session_info_changed", "message_start(custom)", "message_end(custom)", ...run]);
	});
});

describe("extension differential: invalid handler results", () => {
	it("pi 0.73.1 bug: an input transform without text makes prompt() reject; Settle reports it and keeps the text", async () => {
		const errors: Record<string, string[]> = { pi: [], settle: [] };
		const extension: SharedExtension = (api: ExtensionAPI) => {
			api.on("input", () => ({ action: "transform" }) as never);
			api.on("input", () => undefined);
		};
		const { pi, settle } = await onBothPeers(
			(name) => ({ extensions: [extension], onError: (error) => void errors[name]?.push(error.error) }),
			async (peer) => {
				peer.script([{ text: "answer" }]);
				await peer.prompt("question");
				await peer.quiesce();
				return {
					marks: peer.recorded.flatMap((item) => (item.kind === "mark" ? [item.label] : [])),
					requests: peer.requests,
				};
			},
		);
		expect(pi.marks).toEqual(["prompt rejected: question: Cannot read properties of undefined (reading 'startsWith')"]);
		expect(pi.requests).toEqual([]);
		expect(errors.pi).toEqual([]);
		expect(settle.marks).toEqual(["prompt resolved: question"]);
		expect(settle.requests.map((request) => request.messages)).toEqual([["user: question"]]);
		expect(errors.settle).toEqual([
			'An input handler returned {action: "transform"} without a text string; the transform was ignored.',
		]);
	});
});

/** Plays one prompt with `extension` on both peers: events, prompt outcome, requests, onError texts. */
async function onePrompt(extension: SharedExtension) {
	const errors: Record<string, string[]> = { pi: [], settle: [] };
	return onBothPeers(
		(name) => ({ extensions: [extension], onError: (error) => void errors[name]?.push(error.error) }),
		async (peer) => {
			peer.script([{ text: "answer" }, { text: "unused" }]);
			await peer.prompt("question");
			await peer.quiesce();
			return {
				events: eventSequence(peer.recorded),
				requests: peer.requests.map((request) => request.messages),
				file: fileMessages(peer.fileEntries()),
				errors: errors[peer.name],
			};
		},
	);
}

describe("extension differential: invalid handler results (pi 0.73.1 fails, Settle reports and goes on)", () => {
	it("a context handler returning messages that are not an array", async () => {
		const { pi, settle } = await onePrompt((api: ExtensionAPI) => {
			api.on("context", () => ({ messages: "not a list" }) as never);
		});
		// pi: the run ends after the user message, no request, no assistant, no error anywhere.
		expect(pi.events).toEqual([
			"agent_start",
			"turn_start",
			"message_start(user)",
			"message_end(user)",
			"agent_end",
			"<<prompt resolved: question>>",
		]);
		expect(pi.requests).toEqual([]);
		expect(pi.errors).toEqual([]);
		expect(settle.requests).toEqual([["user: question"]]);
		expect(settle.file).toEqual([
			{ role: "user", content: [{ type: "text", text: "question" }] },
			{ role: "assistant", content: [{ type: "text", text: "answer" }], stopReason: "stop" },
		]);
		expect(settle.errors).toEqual(["A context handler returned messages that are not an array; they were ignored."]);
	});

	it("a message_end replacement with null content", async () => {
		const { pi, settle } = await onePrompt((api: ExtensionAPI) => {
			api.on("message_end", (event) =>
				event.message.role === "system" ? undefined : { message: { ...event.message, content: null } as never },
			);
		});
		// pi keeps null content in the file and its run ends without turn_end; Settle stores [] (C.10).
		expect(pi.events).not.toContain("turn_end(assistant)");
		expect(pi.file).toEqual([
			{ role: "user", content: null },
			{ role: "assistant", content: null, stopReason: "stop" },
		]);
		expect(settle.events).toContain("turn_end(assistant)");
		expect(settle.file).toEqual([
			{ role: "user", content: [] },
			{ role: "assistant", content: [], stopReason: "stop" },
		]);
		expect(settle.errors).toEqual([]);
	});

	it("a tool_result handler's content that is not an array: pi 0.73.1 stores it and its next compaction fails", async () => {
		const errors: Record<string, string[]> = { pi: [], settle: [] };
		const extension: SharedExtension = (api: ExtensionAPI) => {
			api.on("tool_result", () => ({ content: "not a list" }) as never);
		};
		const { pi, settle } = await onBothPeers(
			(name) => ({
				extensions: [extension],
				customTools: programTools(),
				settings: { compaction: { enabled: false, reserveTokens: 16384, keepRecentTokens: 5 } },
				onError: (error) => void errors[name]?.push(error.error),
			}),
			async (peer) => {
				peer.script([
					echoCall("call-1"),
					{ text: "a0" },
					{ text: "a1" },
					{ text: "a2" },
					{ text: "summary" },
					{ text: "prefix" },
				]);
				for (const text of ["question 1", "question 2", "question 3"]) await peer.prompt(text);
				const compaction = await peer.session.compact().then(
					() => "compacted",
					(error: Error) => error.message,
				);
				const stored = peer.fileEntries().flatMap((entry) => {
					const message = entry.message as { role?: string; content?: unknown } | undefined;
					return message?.role === "toolResult" ? [message.content] : [];
				});
				return { compaction, stored };
			},
		);
		expect(pi).toEqual({ compaction: "msg.content.filter is not a function", stored: ["not a list"] });
		expect(errors.pi).toEqual([]);
		expect(settle).toEqual({ compaction: "compacted", stored: [[{ type: "text", text: "echoed: call-1" }]] });
		expect(errors.settle).toEqual(["A tool_result handler returned content that is not an array; it was ignored."]);
	});
});
