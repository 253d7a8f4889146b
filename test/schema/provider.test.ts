/**
 * The tool schema a provider gets (src/schema/provider.ts): gaps some providers refuse are filled
 * with what the schema implies, and nothing else changes: not the tool's own object, not a schema
 * that has no such gap, not an enum whose values do not share one type.
 */
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { providerToolSchema } from "../../src/schema/provider.js";

describe("providerToolSchema", () => {
	it("types TypeBox 1.x's Type.Enum (an enum without type) wherever it sits, leaving the tool's own schema as it was", () => {
		const parameters = Type.Object({
			groups: Type.Array(Type.Enum(["search", "delegate"])),
			level: Type.Optional(Type.Union([Type.Enum([1, 2, 3]), Type.Enum([0.5, 1])])),
			strict: Type.Unsafe<boolean>({ enum: [true, false] }),
		});
		const before = JSON.stringify(parameters);

		const sent = providerToolSchema(parameters) as typeof parameters;

		expect(sent.properties.groups.items).toEqual({ type: "string", enum: ["search", "delegate"] });
		expect(sent.properties.level.anyOf).toEqual([
			{ type: "integer", enum: [1, 2, 3] },
			{ type: "number", enum: [0.5, 1] },
		]);
		expect(sent.properties.strict).toEqual({ type: "boolean", enum: [true, false] });
		expect(sent.required).toEqual(["groups", "strict"]);
		expect(JSON.stringify(parameters)).toBe(before);
	});

	it("fills a top-level { type: object } with properties: {}, and only the top level", () => {
		const parameters = { type: "object", properties: { options: { type: "object" } } };

		expect(providerToolSchema({ type: "object" })).toEqual({ type: "object", properties: {} });
		expect(providerToolSchema(parameters)).toBe(parameters);
	});

	it("leaves out TypeBox's ~ markers at any depth (pi-mcp-adapter#289), not a property named with ~, nor in the tool's own schema", () => {
		const parameters = {
			type: "object",
			properties: {
				timeoutMs: { type: "number", minimum: 1, "~optional": true },
				"~raw": { type: "array", items: { type: "string", "~kind": "String" } },
			},
			required: ["~raw"],
		};
		const before = JSON.stringify(parameters);

		expect(providerToolSchema(parameters)).toEqual({
			type: "object",
			properties: { timeoutMs: { type: "number", minimum: 1 }, "~raw": { type: "array", items: { type: "string" } } },
			required: ["~raw"],
		});
		expect(JSON.stringify(parameters)).toBe(before);
	});

	it("returns a schema with nothing missing as it is: typed enums, enums of mixed or null values, references", () => {
		const schemas = [
			Type.Object({}),
			{ type: "object", properties: { mode: { type: "string", enum: ["a", "b"] } } },
			{
				type: "object",
				properties: { mixed: { enum: ["a", 1] }, nullable: { enum: ["a", null] }, none: { enum: [] } },
			},
			{ type: "object", properties: { ref: { $ref: "#/$defs/mode" } }, $defs: { mode: { type: "string" } } },
		];
		for (const schema of schemas) expect(providerToolSchema(schema)).toBe(schema);
	});
});
