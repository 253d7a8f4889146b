/**
 * Tools whose parameters are written with TypeBox 1.x (the `typebox` package pi 1.x uses) get typed
 * `params`, as with `@sinclair/typebox` 0.34, and validate the same way at run time.
 *
 * `ToolParams` kind by kind against typebox 1.x's own `Static`: typebox1-static.test.ts.
 */
import { Type as Type034 } from "@sinclair/typebox";
import { Type } from "typebox";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { ToolResultMessage } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { type AnyToolDefinition, defineTool } from "../../src/tools/types.js";

describe("pi.registerTool with TypeBox 1.x parameters", () => {
	it("types execute's params (checked by tsc; defineTool's: typebox1-static.test.ts)", () => {
		const extension = (pi: ExtensionAPI) =>
			pi.registerTool({
				name: "count",
				label: "count",
				description: "count",
				parameters: Type.Object({ n: Type.Integer() }),
				execute: async (_id, params) => {
					expectTypeOf(params).toEqualTypeOf<{ n: number }>();
					return { content: [{ type: "text", text: String(params.n + 1) }], details: undefined };
				},
			});
		expect(typeof extension).toBe("function");
	});
});

describe("TypeBox 1.x tool parameters at run time", () => {
	let h: Harness;
	afterEach(() => h?.cleanup());

	/** The tool results a session produces when the model calls `echo` with each of `calls`' arguments. */
	async function toolResults(tool: AnyToolDefinition, calls: Record<string, unknown>[]): Promise<ToolResultMessage[]> {
		h = await createHarness({ customTools: [tool] });
		h.setResponses([
			fauxAssistantMessage(
				calls.map((args, index) => fauxToolCall("echo", args, { id: `call-${index}` })),
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("go");
		const results = h.session.messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
		h.cleanup();
		return results.map(({ timestamp: _timestamp, ...rest }) => rest as ToolResultMessage);
	}

	function echo(parameters: object): AnyToolDefinition {
		return defineTool({
			name: "echo",
			label: "echo",
			description: "echoes its arguments",
			parameters,
			execute: async (_id, params) => ({ content: [{ type: "text", text: JSON.stringify(params) }], details: {} }),
		});
	}

	const calls = [
		{ path: "a.txt", limit: "5", mode: "fast" }, // "5" coerced to 5
		{ path: "a.txt", mode: "medium" }, // not one of the literals
		{ limit: 0, mode: "slow" }, // path missing, limit below minimum
		{ path: "b.txt", mode: "slow", tags: ["x", 2] }, // 2 coerced to "2"
	];

	it("validates and coerces arguments exactly as for the same schema written with TypeBox 0.34", async () => {
		const v1 = Type.Object({
			path: Type.String(),
			limit: Type.Optional(Type.Integer({ minimum: 1 })),
			mode: Type.Union([Type.Literal("fast"), Type.Literal("slow")]),
			tags: Type.Optional(Type.Array(Type.String())),
		});
		const v034 = Type034.Object({
			path: Type034.String(),
			limit: Type034.Optional(Type034.Integer({ minimum: 1 })),
			mode: Type034.Union([Type034.Literal("fast"), Type034.Literal("slow")]),
			tags: Type034.Optional(Type034.Array(Type034.String())),
		});
		const withV1 = await toolResults(echo(v1), calls);
		const withV034 = await toolResults(echo(v034), calls);
		expect(withV1).toEqual(withV034);
		expect(withV1.map((result) => result.isError)).toEqual([false, true, true, false]);
		expect(withV1[0]!.content).toEqual([{ type: "text", text: '{"path":"a.txt","limit":5,"mode":"fast"}' }]);
		expect(withV1[3]!.content).toEqual([{ type: "text", text: '{"path":"b.txt","mode":"slow","tags":["x","2"]}' }]);
		const errorText = (withV1[2]!.content[0] as { text: string }).text;
		expect(errorText).toContain("  - path: must have required properties path");
		expect(errorText).toContain("  - limit: must be >= 1");
	});
});
