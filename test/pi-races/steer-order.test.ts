/**
 * Reports about the order in which queued messages reach the model, replayed on a real disk
 * session with the real `bash` tool. atomic#2074: messages are to be consumed in the order they
 * were submitted within a delivery class, whatever path they took; atomic's held messages jumped
 * ahead of later ones. In Settle an extension's async `input` hook decides each `steer()` /
 * `followUp()` before it is queued; a slow hook on the first message must not let the second
 * overtake it. github/app#430: with a follow-up already queued, a steer sent after it must be the
 * message the model gets at the next tool boundary, the follow-up only once the run would stop.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context, ImageContent } from "../../src/llm/types.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { encodeImage } from "../tools/image-resize-helpers.js";
import { comparable, gate, persistedUserTexts, reopenedContext, script, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

const lastUser = (context: Context | undefined) => (context ? userTexts(context).at(-1) : undefined);

type QueueUpdate = Extract<AgentSessionEvent, { type: "queue_update" }>;
const ANSWERS = ["answer one", "answer two", "answer three", "answer four"];

/**
 * The set-up of the replays where messages are queued while an `input` hook holds one of them: a
 * disk session with the real `bash` tool. `inputHook` registers the extension's hook, which may
 * wait for `slowHook`; the tool's `tool_call` hook releases `slowHook` and lets the tool run only
 * once a `queue_update` satisfies `allQueued`. The model's first reply calls `sendWhileStreaming`
 * and asks for the tool; `answers` plain answers follow. Returns after `prompt("start")`.
 */
async function queueWhileToolRuns(options: {
	inputHook: (pi: ExtensionAPI, slowHook: ReturnType<typeof gate>) => void;
	allQueued: (event: QueueUpdate) => boolean;
	sendWhileStreaming: () => Promise<unknown>[];
	answers: number;
}) {
	const slowHook = gate();
	let allQueued!: () => void;
	const queued = new Promise<void>((resolve) => {
		allQueued = resolve;
	});
	h = await createHarness({
		persistence: "disk",
		initialActiveToolNames: ["bash"],
		extensionFactories: [
			(pi: ExtensionAPI) => {
				options.inputHook(pi, slowHook);
				pi.on("tool_call", async () => {
					slowHook.release();
					await queued;
					return undefined;
				});
			},
		],
	});
	const harness = h;
	harness.session.subscribe((event) => {
		if (event.type === "queue_update" && options.allQueued(event)) allQueued();
	});
	const sent: Promise<unknown>[] = [];
	const { answerRequests } = script(harness, [
		() => {
			sent.push(...options.sendWhileStreaming());
			return fauxAssistantMessage([fauxToolCall("bash", { command: "true" }, { id: "call-1" })], {
				stopReason: "toolUse",
			});
		},
		...ANSWERS.slice(0, options.answers).map((text) => fauxAssistantMessage(text)),
	]);
	await harness.session.prompt("start");
	return { harness, answerRequests, sent };
}

describe("atomic#2074: queued messages overtake each other", () => {
	it.each([
		["steer", "steer()"],
		["followUp", "followUp()"],
		["steer", "prompt() with streamingBehavior (a line typed in settle -i)"],
	] as const)(
		"atomic#2074: two %s messages sent with %s, the first held by a slow input hook, reach the model and the file in the order they were sent",
		async (kind, how) => {
			const send = (text: string): Promise<string> =>
				how.startsWith("prompt")
					? h!.session.prompt(text, { streamingBehavior: kind }).then(() => "queued")
					: h!.session[kind](text);
			// The tool runs once both were sent: the lookup ends then, before the tool does.
			const { harness, answerRequests, sent } = await queueWhileToolRuns({
				// An input hook that looks something up for some messages (here: the first one).
				inputHook: (pi, slowHook) =>
					pi.on("input", async (event) => {
						if (event.text === "first") await slowHook.promise;
						return { action: "continue" };
					}),
				allQueued: (event) => (kind === "steer" ? event.steering : event.followUp).includes("first"),
				sendWhileStreaming: () => [send("first"), send("second")],
				answers: 3,
			});
			expect(await Promise.all(sent)).toEqual(["queued", "queued"]);

			// One at a time (the default mode): each queued message gets its own request, in send order;
			// steers right after the tool result, follow-ups once the run would stop.
			const order = kind === "steer" ? ["start", "first", "second"] : ["start", "start", "first", "second"];
			expect(answerRequests.map(lastUser)).toEqual(order);
			expect(persistedUserTexts(harness.session.sessionFile!)).toEqual(["start", "first", "second"]);
			expect(reopenedContext(harness.session.sessionFile!).map(comparable)).toEqual(
				harness.session.messages.map(comparable),
			);
		},
	);
});

describe("github/app#430: a queued follow-up is sent instead of the steer", () => {
	it("github/app#430: a steer sent after a queued follow-up is what the model gets after the tool; the follow-up comes last", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash"] });
		const harness = h;
		const sent: Promise<string>[] = [];
		const { answerRequests } = script(harness, [
			() => {
				sent.push(harness.session.followUp("then update the docs"));
				sent.push(harness.session.steer("use the staging database instead"));
				return fauxAssistantMessage([fauxToolCall("bash", { command: "true" }, { id: "call-1" })], {
					stopReason: "toolUse",
				});
			},
			fauxAssistantMessage("switched to staging"),
			fauxAssistantMessage("docs updated"),
		]);
		await harness.session.prompt("migrate the database");
		expect(await Promise.all(sent)).toEqual(["queued", "queued"]);

		expect(answerRequests).toHaveLength(3);
		// The request right after the tool result carries the steer, not the follow-up.
		expect(answerRequests[1]!.messages.slice(-2).map((message) => message.role)).toEqual(["toolResult", "user"]);
		expect(userTexts(answerRequests[1]!)).toEqual(["migrate the database", "use the staging database instead"]);
		expect(lastUser(answerRequests[2])).toBe("then update the docs");
		expect(persistedUserTexts(harness.session.sessionFile!)).toEqual([
			"migrate the database",
			"use the staging database instead",
			"then update the docs",
		]);
		expect(harness.session.pendingMessageCount).toBe(0);
	});
});

describe("send order across entry points: a request through the session's machine and a direct steer() / followUp()", () => {
	it.each([
		["steer", "sendUserMessage(…, { deliverAs })"],
		["steer", "prompt(…, { streamingBehavior })"],
		["followUp", "sendUserMessage(…, { deliverAs })"],
		["followUp", "prompt(…, { streamingBehavior })"],
	] as const)(
		"a %s sent with %s from an agent_start listener, then one sent with the direct call, reach the model and the file in the order they were sent",
		async (kind, how) => {
			h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash"] });
			const harness = h;
			const sent: Promise<unknown>[] = [];
			// agent_start is emitted while the machine handles the run's start: a request sent now waits
			// in its mailbox, the direct call does not.
			harness.session.subscribe((event) => {
				if (event.type !== "agent_start" || sent.length > 0) return;
				sent.push(
					how.startsWith("prompt")
						? harness.session.prompt("A", { streamingBehavior: kind })
						: harness.session.sendUserMessage("A", { deliverAs: kind }),
					harness.session[kind]("B"),
				);
			});
			const { answerRequests } = script(harness, [
				fauxAssistantMessage([fauxToolCall("bash", { command: "true" }, { id: "call-1" })], { stopReason: "toolUse" }),
				fauxAssistantMessage("answer one"),
				fauxAssistantMessage("answer two"),
				fauxAssistantMessage("answer three"),
			]);
			await harness.session.prompt("start");
			await Promise.all(sent);

			// One at a time, A first: a steer sent at agent_start joins the first request, the next one the
			// request after the tool result; follow-ups come once the run would stop.
			const order = kind === "steer" ? ["A", "B"] : ["start", "start", "A", "B"];
			expect(answerRequests.map(lastUser)).toEqual(order);
			expect(persistedUserTexts(harness.session.sessionFile!)).toEqual(["start", "A", "B"]);
			expect(harness.session.pendingMessageCount).toBe(0);
		},
	);
});

describe("a request that joins no queue does not hold up the messages sent after it", () => {
	it("a prompt with streamingBehavior sent while idle runs as its own operation; a steer() sent after it is queued", async () => {
		h = await createHarness({ persistence: "disk" });
		const harness = h;
		const { answerRequests } = script(harness, [fauxAssistantMessage("answer A"), fauxAssistantMessage("answer C")]);
		await harness.session.prompt("A", { streamingBehavior: "steer" });
		expect(await harness.session.steer("B")).toBe("queued");
		await harness.session.prompt("C");

		expect(answerRequests.map(userTexts)).toEqual([["A"], ["A", "C", "B"]]);
		expect(persistedUserTexts(harness.session.sessionFile!)).toEqual(["A", "C", "B"]);
	});

	it("a prompt with streamingBehavior sent during another prompt's input hook waits to run on its own; a steer() sent after it is queued for the running one", async () => {
		const slowHook = gate();
		const inHook = gate();
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("input", async (event) => {
						if (event.text === "X") {
							inHook.release();
							await slowHook.promise;
						}
						return { action: "continue" };
					});
				},
			],
		});
		const harness = h;
		const { answerRequests } = script(harness, [fauxAssistantMessage("answer X"), fauxAssistantMessage("answer A")]);
		const x = harness.session.prompt("X");
		await inHook.promise;
		const a = harness.session.prompt("A", { streamingBehavior: "steer" });
		// Queued while X's hook still runs: it does not wait for A, which has no place in the queue.
		expect(await harness.session.steer("B")).toBe("queued");
		slowHook.release();
		await Promise.all([x, a]);

		expect(answerRequests.map(userTexts)).toEqual([
			["X", "B"],
			["X", "B", "A"],
		]);
		expect(persistedUserTexts(harness.session.sessionFile!)).toEqual(["X", "B", "A"]);
	});

	it("an extension command sent with streamingBehavior runs without holding up a steer() sent after it", async () => {
		const slowCommand = gate();
		h = await createHarness({
			persistence: "disk",
			initialActiveToolNames: ["bash"],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerCommand("lookup", { description: "Looks something up", handler: () => slowCommand.promise });
				},
			],
		});
		const harness = h;
		let command: Promise<void> | undefined;
		let steered: Promise<string> | undefined;
		harness.session.subscribe((event) => {
			if (event.type !== "agent_start" || command) return;
			command = harness.session.prompt("/lookup", { streamingBehavior: "steer" });
			// Queued while the command still runs.
			steered = harness.session.steer("B").then((result) => {
				slowCommand.release();
				return result;
			});
		});
		const { answerRequests } = script(harness, [
			fauxAssistantMessage([fauxToolCall("bash", { command: "true" }, { id: "call-1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("answer one"),
		]);
		await harness.session.prompt("start");
		expect(await steered).toBe("queued");
		await command;

		expect(answerRequests.map(lastUser)).toEqual(["B", "B"]);
		expect(persistedUserTexts(harness.session.sessionFile!)).toEqual(["start", "B"]);
	});

	it("a session disposed before its machine handled a steer request: a steer() sent after that request still settles, listed as undelivered", async () => {
		h = await createHarness({ persistence: "disk" });
		const harness = h;
		const sent = new Promise<{ request: Promise<unknown>; steered: Promise<string> }>((resolve) => {
			const unsubscribe = harness.session.subscribe((event) => {
				if (event.type !== "agent_start") return;
				unsubscribe();
				const request = harness.session.sendUserMessage("A", { deliverAs: "steer" }).catch((error: unknown) => error);
				const steered = harness.session.steer("B");
				harness.session.dispose();
				resolve({ request, steered });
			});
		});
		script(harness, [fauxAssistantMessage("never sent")]);
		const started = harness.session.prompt("start").catch((error: unknown) => error);
		const { request, steered } = await sent;

		expect(await steered).toBe("queued");
		expect(await request).toMatchObject({ code: "SESSION_CLOSED" });
		expect(await started).toMatchObject({ code: "SESSION_CLOSED" });
		expect(harness.session.getSteeringMessages()).toEqual(["B"]);
	});
});

/** A PNG with a side over 2000 px: resized before it is queued, so its steer() waits for that. */
const TALL_SCREENSHOT: ImageContent = {
	type: "image",
	data: encodeImage("png", 20, 2100).toString("base64"),
	mimeType: "image/png",
};

describe("atomic#2074: the submission order of a queue, whatever happens to each message", () => {
	it("atomic#2074: a steer() an input hook handles does not let the next one overtake the one before it, still in its hook", async () => {
		const slowHook = gate();
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("input", async (event) => {
						if (event.text === "first") await slowHook.promise;
						return event.text === "second" ? { action: "handled" } : { action: "continue" };
					});
				},
			],
		});
		const harness = h;
		const first = harness.session.steer("first");
		const second = harness.session.steer("second");
		const third = harness.session.steer("third");
		expect(await second).toBe("handled");
		slowHook.release();
		expect(await Promise.all([first, third])).toEqual(["queued", "queued"]);
		expect(harness.session.getSteeringMessages()).toEqual(["first", "third"]);

		const { answerRequests } = script(harness, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await harness.session.prompt("go");
		// One at a time: each steer gets its own request, in send order.
		expect(answerRequests.map(userTexts)).toEqual([
			["go", "first"],
			["go", "first", "third"],
		]);
		expect(persistedUserTexts(harness.session.sessionFile!)).toEqual(["go", "first", "third"]);
	});

	it("oh-my-pi#10633: after an extension command sent with streamingBehavior, a steer() sent while one with a tall screenshot is resized still waits for it", async () => {
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerCommand("note", { description: "Takes a note", handler: async () => {} });
				},
			],
		});
		const harness = h;
		let command: Promise<void> | undefined;
		harness.session.subscribe((event) => {
			if (event.type === "agent_start" && !command)
				command = harness.session.prompt("/note", { streamingBehavior: "steer" });
		});
		script(harness, [fauxAssistantMessage("noted"), fauxAssistantMessage("looked")]);
		await harness.session.prompt("start");
		await command;

		const screenshot = harness.session.steer("look at this", [TALL_SCREENSHOT]);
		const plain = harness.session.steer("and this");
		expect(await Promise.all([screenshot, plain])).toEqual(["queued", "queued"]);
		expect(harness.session.getSteeringMessages()).toEqual(["look at this", "and this"]);
	});

	it("a steer() with nothing to wait for is listed as soon as it is called, also after one that waited for its screenshot's resize", async () => {
		h = await createHarness({ persistence: "disk" });
		const harness = h;
		expect(await harness.session.steer("look at this", [TALL_SCREENSHOT])).toBe("queued");
		const plain = harness.session.steer("and this");
		expect(harness.session.getSteeringMessages()).toEqual(["look at this", "and this"]);
		expect(await plain).toBe("queued");
	});
});

describe("kimchi#34: an input hook that sends a message of its own while the agent streams", () => {
	it.each([
		["steer", "prompt(…, { streamingBehavior })", "pi.sendUserMessage(…, { deliverAs })"],
		["steer", "prompt(…, { streamingBehavior })", "session.steer()"],
		["steer", "steer()", "pi.sendUserMessage(…, { deliverAs })"],
		["steer", "steer()", "session.steer()"],
		["followUp", "prompt(…, { streamingBehavior })", "pi.sendUserMessage(…, { deliverAs })"],
		["followUp", "followUp()", "session.followUp()"],
	] as const)(
		"kimchi#34: a %s sent with %s whose input hook awaits a message of the same kind sent with %s does not hang: the hook's message goes first, then the one it handled, then one sent after it",
		async (kind, how, hookSend) => {
			const send = (text: string): Promise<unknown> =>
				how.startsWith("prompt") ? h!.session.prompt(text, { streamingBehavior: kind }) : h!.session[kind](text);
			// The hook's message is looked at by the hook too, slowly: it is done once the tool runs.
			const { harness, answerRequests, sent } = await queueWhileToolRuns({
				// The hook adds the project's conventions ahead of the message it handles, and waits for it.
				inputHook: (pi, slowConventions) =>
					pi.on("input", async (event) => {
						if (event.text === "conventions") await slowConventions.promise;
						if (event.text !== "X") return { action: "continue" };
						if (hookSend.startsWith("pi.")) await pi.sendUserMessage("conventions", { deliverAs: kind });
						else await h!.session[kind]("conventions");
						return { action: "continue" };
					}),
				allQueued: (event) => (kind === "steer" ? event.steering : event.followUp).length === 3,
				// Z is sent while X's hook runs: it stays behind X.
				sendWhileStreaming: () => [send("X"), send("Z")],
				answers: 4,
			});
			await Promise.all(sent);

			const order = kind === "steer" ? ["start", "conventions", "X", "Z"] : ["start", "start", "conventions", "X", "Z"];
			expect(answerRequests.map(lastUser)).toEqual(order);
			expect(persistedUserTexts(harness.session.sessionFile!)).toEqual(["start", "conventions", "X", "Z"]);
			expect(harness.session.pendingMessageCount).toBe(0);
		},
	);
});

describe("kimchi#34: an input hook that takes a steer over and sends its own instead", () => {
	it("kimchi#34: a hook that handles a steer and sends a replacement with pi.sendUserMessage (not awaited): the replacement still reaches the model before a steer sent after the handled one", async () => {
		const { harness, answerRequests, sent } = await queueWhileToolRuns({
			inputHook: (pi, slowReplacement) =>
				pi.on("input", async (event) => {
					if (event.text.startsWith("X, with")) await slowReplacement.promise;
					if (event.text !== "X") return { action: "continue" };
					pi.sendUserMessage("X, with the project's conventions", { deliverAs: "steer" });
					return { action: "handled" };
				}),
			allQueued: (event) => event.steering.length === 2,
			sendWhileStreaming: () => [h!.session.prompt("X", { streamingBehavior: "steer" }), h!.session.steer("Z")],
			answers: 2,
		});
		await Promise.all(sent);
		await harness.session.waitForExtensionRuns();

		expect(persistedUserTexts(harness.session.sessionFile!)).toEqual([
			"start",
			"X, with the project's conventions",
			"Z",
		]);
		expect(answerRequests.map(lastUser)).toEqual(["start", "X, with the project's conventions", "Z"]);
	});
});
