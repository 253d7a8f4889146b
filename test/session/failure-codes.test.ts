/**
 * `failureOf` from the package root: a host branches on why an answer failed (`NO_AUTH`,
 * `PROVIDER`) without parsing its text — also when an extension replaced the failed message at
 * `message_end`: the code follows a replacement that is still a failure (with the replacement's
 * text), and is gone once an extension turned the failure into an answer.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
	type AgentSessionEvent,
	type AssistantMessage,
	type ExtensionAPI,
	type ExtensionFactory,
	failureOf,
	fauxAssistantMessage,
	SettleError,
} from "../../src/index.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

const REFUSED = '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}';

let h: Harness | undefined;
afterEach(async () => {
	await h?.cleanup();
	h = undefined;
});

/** The session's last assistant message, and the code `failureOf` gave it when listeners saw its message_end. */
async function refusedRun(extensionFactories: ExtensionFactory[] = []) {
	h = await createHarness({ extensionFactories });
	h.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: REFUSED })]);
	const seen: (string | undefined)[] = [];
	h.session.subscribe((event: AgentSessionEvent) => {
		if (event.type === "message_end" && event.message.role === "assistant") seen.push(failureOf(event.message)?.code);
	});
	await h.session.prompt("hi");
	const last = h.session.messages.at(-1) as AssistantMessage;
	return { last, seen };
}

/** An extension whose message_end handler replaces assistant messages with `replace(message)`. */
function replacing(replace: (message: AssistantMessage) => AssistantMessage): ExtensionFactory {
	return (pi: ExtensionAPI) => {
		pi.on("message_end", (event) =>
			event.message.role === "assistant" ? { message: replace(event.message as AssistantMessage) } : undefined,
		);
	};
}

describe("failureOf (package root)", () => {
	it("types a provider's refusal as NO_AUTH and another failure as PROVIDER; a success has none", async () => {
		const { last, seen } = await refusedRun();
		expect(last.stopReason).toBe("error");
		const failure = failureOf(last);
		expect(failure).toBeInstanceOf(SettleError);
		expect([failure?.code, failure?.message, failure?.details]).toEqual([
			"NO_AUTH",
			REFUSED,
			{ provider: "faux", status: 401 },
		]);
		expect(seen).toEqual(["NO_AUTH"]);

		h!.setResponses([
			fauxAssistantMessage("", {
				stopReason: "error",
				errorMessage: "400 messages: text content blocks must be non-empty",
			}),
		]);
		await h!.session.prompt("again");
		expect(failureOf(h!.session.messages.at(-1) as AssistantMessage)?.code).toBe("PROVIDER");

		h!.setResponses([fauxAssistantMessage("fine")]);
		await h!.session.prompt("once more");
		expect(failureOf(h!.session.messages.at(-1) as AssistantMessage)).toBeUndefined();
	});
});

describe("failureOf after a message_end replacement", () => {
	it("regression: a failure an extension only annotated lost its code (was undefined); now it keeps the same error", async () => {
		const { last, seen } = await refusedRun([
			replacing((message) => ({ ...message, content: [{ type: "text", text: "(the provider refused)" }] })),
		]);
		expect(last.content).toEqual([{ type: "text", text: "(the provider refused)" }]);
		expect(failureOf(last)?.code).toBe("NO_AUTH");
		expect(failureOf(last)?.message).toBe(REFUSED);
		expect(seen).toEqual(["NO_AUTH"]);
	});

	it("a reworded failure keeps the code and details with the replacement's text, the original as its cause", async () => {
		const { last, seen } = await refusedRun([
			replacing((message) => ({ ...message, errorMessage: `${message.errorMessage} (run /login faux)` })),
		]);
		const failure = failureOf(last);
		expect([failure?.code, failure?.message, failure?.details]).toEqual([
			"NO_AUTH",
			`${REFUSED} (run /login faux)`,
			{ provider: "faux", status: 401 },
		]);
		expect(failure?.cause).toMatchObject({ code: "NO_AUTH", message: REFUSED });
		expect(seen).toEqual(["NO_AUTH"]);
	});

	it("a second extension sees the code of the first one's replacement; a failure turned into an answer has none", async () => {
		const codes: (string | undefined)[] = [];
		const { last, seen } = await refusedRun([
			replacing((message) => ({ ...message, errorMessage: "The key was refused." })),
			(pi: ExtensionAPI) => {
				pi.on("message_end", (event) => {
					if (event.message.role === "assistant") codes.push(failureOf(event.message as AssistantMessage)?.code);
				});
			},
			replacing(({ errorMessage: _dropped, ...message }) => ({
				...message,
				stopReason: "stop",
				content: [{ type: "text", text: "Answered offline." }],
			})),
		]);
		expect(codes).toEqual(["NO_AUTH"]);
		expect(last.stopReason).toBe("stop");
		expect(failureOf(last)).toBeUndefined();
		expect(seen).toEqual([undefined]);
	});
});
