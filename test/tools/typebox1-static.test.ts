/**
 * Settle's `ToolParams` (what `defineTool` and `pi.registerTool` type `execute`'s params with)
 * against typebox 1.x's own `Static`, kind by kind. typebox 1.4 is in node_modules as a dependency
 * of the pi 0.73.1 peer; Settle's own types never import it. `vitest run` does not check
 * `expectTypeOf`, so the test below compiles this very file with the project's options.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Type as Type034 } from "@sinclair/typebox";
import { type Static, Type } from "typebox";
import ts from "typescript";
import { describe, expect, expectTypeOf, it } from "vitest";
import { defineTool, type ToolParams } from "../../src/tools/types.js";

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(dirname(HERE), "..", "..");

const kitchenSink = Type.Object({
	path: Type.String(),
	limit: Type.Optional(Type.Integer({ minimum: 1 })),
	ratio: Type.Number(),
	force: Type.Boolean(),
	mode: Type.Union([Type.Literal("fast"), Type.Literal("slow")]),
	tags: Type.Array(Type.String()),
	frozen: Type.Immutable(Type.Array(Type.Number())),
	nested: Type.Object({ a: Type.Null(), b: Type.Optional(Type.Unknown()) }),
	id: Type.Readonly(Type.String()),
	note: Type.Readonly(Type.Optional(Type.String())),
	env: Type.Record(Type.String(), Type.String()),
	counts: Type.Record(Type.Integer(), Type.Boolean()),
	color: Type.Enum(["red", "green"]),
	pair: Type.Tuple([Type.String(), Type.Number()]),
	both: Type.Intersect([Type.Object({ x: Type.Number() }), Type.Object({ y: Type.String() })]),
	anything: Type.Any(),
	maybe: Type.Union([Type.String(), Type.Null(), Type.Undefined()]),
	big: Type.BigInt(),
	custom: Type.Unsafe<{ kind: "custom" }>({ type: "object" }),
	empty: Type.Object({}),
});

describe("ToolParams of TypeBox 1.x schemas", () => {
	it("this file type-checks under the project's options (the expectTypeOf checks below hold)", () => {
		const config = ts.getParsedCommandLineOfConfigFile(
			join(ROOT, "tsconfig.json"),
			{},
			{
				...ts.sys,
				onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
					throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
				},
			},
		);
		if (!config) throw new Error("tsconfig.json does not parse");
		const program = ts.createProgram({ rootNames: [HERE], options: { ...config.options, noEmit: true } });
		// This file's diagnostics only: the sources it imports are `tsc --noEmit`'s to check, and checking
		// every one of them again here cost ~4 s of CPU.
		const errors = ts.getPreEmitDiagnostics(program, program.getSourceFile(HERE)).map((diagnostic) => {
			const where =
				diagnostic.file && diagnostic.start !== undefined
					? `${diagnostic.file.fileName}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1} `
					: "";
			return where + ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
		});
		expect(errors).toEqual([]);
	}, 60_000);

	it("equals typebox 1.x's own Static, kind by kind", () => {
		expectTypeOf<ToolParams<typeof kitchenSink>>().toEqualTypeOf<Static<typeof kitchenSink>>();
		// Spelled out once, so a change on both sides cannot pass unnoticed.
		expectTypeOf<ToolParams<typeof kitchenSink>["limit"]>().toEqualTypeOf<number | undefined>();
		expectTypeOf<ToolParams<typeof kitchenSink>["mode"]>().toEqualTypeOf<"fast" | "slow">();
		expectTypeOf<ToolParams<typeof kitchenSink>["frozen"]>().toEqualTypeOf<readonly number[]>();
		expectTypeOf<ToolParams<typeof kitchenSink>["counts"]>().toEqualTypeOf<Record<number, boolean>>();
		expectTypeOf<ToolParams<typeof kitchenSink>["custom"]>().toEqualTypeOf<{ kind: "custom" }>();
		expectTypeOf<ToolParams<typeof kitchenSink>["empty"]>().toEqualTypeOf<object>();

		const topLevelUnion = Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.Number() })]);
		expectTypeOf<ToolParams<typeof topLevelUnion>>().toEqualTypeOf<Static<typeof topLevelUnion>>();
		const codec = Type.Codec(Type.String())
			.Decode((value) => new Date(value))
			.Encode((value) => value.toISOString());
		const withCodec = Type.Object({ at: codec });
		expectTypeOf<ToolParams<typeof withCodec>>().toEqualTypeOf<Static<typeof withCodec>>();
	});

	it("types defineTool's execute params", () => {
		const tool = defineTool({
			name: "grep1",
			label: "grep1",
			description: "search",
			parameters: Type.Object({ pattern: Type.String(), limit: Type.Optional(Type.Integer()) }),
			execute: async (_id, params) => {
				expectTypeOf(params).toEqualTypeOf<{ pattern: string; limit?: number }>();
				return { content: [{ type: "text", text: params.pattern }], details: undefined };
			},
		});
		expect(tool.name).toBe("grep1");
	});

	it("leaves TypeBox 0.34 and plain JSON Schema typing as it was", () => {
		const old = Type034.Object({ name: Type034.String(), times: Type034.Optional(Type034.Number()) });
		expectTypeOf<ToolParams<typeof old>>().toEqualTypeOf<{ name: string; times?: number }>();
		const plain = { type: "object", properties: { a: { type: "string" } } };
		// biome-ignore lint/suspicious/noExplicitAny: what plain JSON Schema gives
		expectTypeOf<ToolParams<typeof plain>>().toEqualTypeOf<Record<string, any>>();
	});
});
