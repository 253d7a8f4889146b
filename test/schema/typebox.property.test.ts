/**
 * Settle's internal schema builders (src/schema/typebox.ts) must produce exactly what TypeBox 0.34's
 * `Type.*` produces: same keys in the same order, same symbol markers, same values. Then every
 * consumer of the built-in tool and settings schemas (TypeBox's Value and compiler, ajv, users
 * reading `tool.parameters`) sees no difference from the schemas built with TypeBox itself.
 */
import { type TSchema, Type as TypeBox } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Type } from "../../src/schema/typebox.js";
import { SettingsSchema } from "../../src/settings/schema.js";
import { checkSettingValue } from "../../src/settings/validate.js";
import { createAllToolDefinitions } from "../../src/tools/index.js";
import { type Builders, build, recipe, shape } from "./recipes.js";

describe("schema builders", () => {
	it("build the same objects as TypeBox 0.34 (keys, key order, symbols, values)", () => {
		fc.assert(
			fc.property(recipe, (r) => {
				expect(shape(build(Type as unknown as Builders, r))).toEqual(shape(build(TypeBox, r)));
			}),
			{ numRuns: 300 },
		);
	});

	it("TypeBox's Value checks the built-in tool schemas like its own", () => {
		const tools = createAllToolDefinitions("/tmp");
		expect(Value.Check(tools.read.parameters as TSchema, { path: "a.txt", limit: 3 })).toBe(true);
		expect(Value.Check(tools.read.parameters as TSchema, { limit: 3 })).toBe(false);
		expect(Value.Check(tools.edit.parameters as TSchema, { path: "a", edits: [{ oldText: "x", newText: "y" }] })).toBe(
			true,
		);
		expect(Value.Check(tools.edit.parameters as TSchema, { path: "a", edits: [{ oldText: "x" }] })).toBe(false);
		expect(Value.Check(SettingsSchema, { retry: { maxRetries: 2 }, defaultThinkingLevel: "high" })).toBe(true);
		expect(Value.Check(SettingsSchema, { retry: { maxRetries: -1 } })).toBe(false);
		expect(checkSettingValue("retry.maxRetries", 1.5)).toEqual({
			key: "retry.maxRetries",
			expected: "an integer >= 0",
			received: "1.5",
		});
	});
});
