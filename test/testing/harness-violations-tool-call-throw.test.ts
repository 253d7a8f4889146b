/**
 * testkituser audit: a `tool_call` guard that throws (a bug in the user's extension) blocks the
 * call with the error text as the tool result, as pi does, and reaches no `onError` listener. So
 * `h.extensionErrors` stayed empty and `harnessViolations(h)` returned `[]`: the kit's property
 * could not tell the bug from a deliberate `{ block: true }`. The harness now records the throw.
 * testkit2 audit: the violation named "a tool_call handler" rather than the extension, and no
 * violation said where the handler threw; it now names `<inline:N>` and the throw's file:line.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionFactory } from "../../src/extensions/types.js";
import {
	createHarness,
	fauxAssistantMessage,
	fauxToolCall,
	type Harness,
	harnessViolations,
} from "../../src/testing/index.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

const script = () => [
	fauxAssistantMessage([fauxToolCall("read", { path: "a.txt" }, { id: "call-1" })], { stopReason: "toolUse" }),
	fauxAssistantMessage("ok"),
];

describe("harnessViolations: a tool_call handler that throws (testkituser)", () => {
	it("is reported with the tool, the call and the message", async () => {
		const buggyGuard: ExtensionFactory = (pi) => {
			pi.on("tool_call", (event) => {
				if (event.toolName === "read") throw new Error("guard crashed on a.txt");
			});
		};
		h = await createHarness({ extensionFactories: [buggyGuard] });
		h.setResponses(script());
		await h.session.prompt("read a.txt");
		// the session blocks the call with the message, as pi does
		expect(h.eventsOfType("tool_execution_end")).toMatchObject([
			{ toolName: "read", isError: true, result: { content: [{ text: "guard crashed on a.txt" }] } },
		]);
		expect(harnessViolations(h)).toEqual([
			expect.stringMatching(
				/^extension <inline:1>: its tool_call:read \(call call-1\) handler threw: guard crashed on a\.txt \(thrown at .*harness-violations-tool-call-throw\.test\.ts:\d+:\d+\)$/,
			),
		]);
	});

	it("names the extension that threw and the line it threw at, among several (testkit2)", async () => {
		const allowAll: ExtensionFactory = (pi) => {
			pi.on("tool_call", () => undefined);
		};
		const buggyGuard: ExtensionFactory = (pi) => {
			pi.on("tool_call", (event) => {
				if (event.toolName === "read") throw new Error("guard crashed on a.txt"); // THROW SITE
			});
		};
		h = await createHarness({ extensionFactories: [allowAll, buggyGuard] });
		h.setResponses(script());
		await h.session.prompt("read a.txt");
		const line =
			readFileSync(fileURLToPath(import.meta.url), "utf8")
				.split("\n")
				.findIndex((text) => text.includes("// THROW SITE")) + 1;
		const [violation, ...rest] = harnessViolations(h);
		expect(rest).toEqual([]);
		expect(violation).toMatch(
			/^extension <inline:2>: its tool_call:read \(call call-1\) handler threw: guard crashed on a\.txt/,
		);
		expect(violation).toContain(`harness-violations-tool-call-throw.test.ts:${line}:`);
	});

	it("a thrown string names its extension and no throw site (the only stack there is the runner's own)", async () => {
		const buggyGuard: ExtensionFactory = (pi) => {
			pi.on("tool_call", () => {
				throw "no policy for read";
			});
		};
		h = await createHarness({ extensionFactories: [buggyGuard] });
		h.setResponses(script());
		await h.session.prompt("read a.txt");
		expect(harnessViolations(h)).toEqual([
			"extension <inline:1>: its tool_call:read (call call-1) handler threw: Extension failed, blocking execution: no policy for read",
		]);
	});

	it("a deliberate { block: true } is no violation", async () => {
		const guard: ExtensionFactory = (pi) => {
			pi.on("tool_call", () => ({ block: true, reason: "not now" }));
		};
		h = await createHarness({ extensionFactories: [guard] });
		h.setResponses(script());
		await h.session.prompt("read a.txt");
		expect(h.eventsOfType("tool_execution_end")).toMatchObject([{ toolName: "read", isError: true }]);
		expect(harnessViolations(h)).toEqual([]);
	});
});
