/**
 * pi#2660: an extension's `tool_result` handler that summarizes a tool's output with a model call
 * (a long `fetch`) could not be stopped: handlers got no abort signal, so pressing Esc left the
 * request running and the turn waiting on it. What the user should see: `ctx.signal` in the handler
 * is the run's signal, so `session.abort()` cuts the handler's request (the server sees the
 * connection close), the handler ends at once, and the tool's own result is still saved beside its call.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { orphanToolMessages } from "./disk-harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness | undefined;
let server: Server | undefined;
afterEach(async () => {
	h?.cleanup();
	h = undefined;
	server?.closeAllConnections();
	await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
	server = undefined;
});

/** A summarizer endpoint that never answers: reports each request, and each client that hangs up. */
async function silentSummarizer(onRequest: (request: IncomingMessage) => void): Promise<string> {
	server = createServer((request) => onRequest(request));
	await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}/summarize`;
}

describe("pi#2660: a tool_result handler's own request and the user's abort", () => {
	it("pi#2660: session.abort() cuts the fetch a tool_result handler started with ctx.signal; the handler ends with an AbortError and the result is saved beside its call", async () => {
		let requestArrived!: () => void;
		const arrived = new Promise<void>((resolve) => (requestArrived = resolve));
		let clientClosed!: () => void;
		const closed = new Promise<void>((resolve) => (clientClosed = resolve));
		const url = await silentSummarizer((request) => {
			request.socket.on("close", () => clientClosed());
			requestArrived();
		});
		let handlerError: string | undefined;
		let signalInHandler: AbortSignal | undefined;
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerTool({
						name: "long_log",
						label: "Long log",
						description: "Prints a long log",
						parameters: { type: "object", properties: {} },
						execute: async () => ({ content: [{ type: "text", text: "ten thousand lines" }], details: {} }),
					});
					pi.on("tool_result", async (_event, ctx) => {
						signalInHandler = ctx.signal;
						try {
							await fetch(url, { method: "POST", body: "summarize", signal: ctx.signal });
						} catch (error) {
							handlerError = (error as Error).name;
						}
					});
				},
			],
		});
		script(h, [
			fauxAssistantMessage([fauxToolCall("long_log", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("never"),
		]);

		const prompt = h.session.prompt("read the log");
		await arrived;
		await h.session.abort();
		await prompt;

		expect(signalInHandler?.aborted).toBe(true);
		expect(handlerError).toBe("AbortError");
		await closed;
		const file = h.session.sessionFile!;
		expect(toolResultTexts(h)).toEqual([{ isError: false, text: "ten thousand lines" }]);
		expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		expect(h.session.isStreaming).toBe(false);
	});
});
