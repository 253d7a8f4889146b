/**
 * `findModel`'s NOT_FOUND (and so `settle --model`) names what there is instead: the named
 * provider's models, or the models whose id contains the one asked for.
 */
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createFauxProvider } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { findModel } from "../../src/runtime/sdk.js";

function runtimeWith(ids: string[]): InMemoryModelRuntime {
	const runtime = new InMemoryModelRuntime();
	runtime.registerFauxProvider(createFauxProvider({ models: ids.map((id) => ({ id })) }));
	return runtime;
}

function notFound(runtime: InMemoryModelRuntime, spec: string): string {
	try {
		findModel(runtime, spec);
	} catch (error) {
		expect(error).toBeInstanceOf(SettleError);
		expect((error as SettleError).code).toBe("NOT_FOUND");
		return (error as SettleError).message;
	}
	throw new Error(`findModel found ${spec}`);
}

describe("findModel: a model that is not there", () => {
	it("of a known provider: lists that provider's models", () => {
		expect(notFound(runtimeWith(["sonnet-4", "haiku-4"]), "faux/opus")).toBe(
			"Model not found: faux/opus. faux serves: sonnet-4, haiku-4. Use provider/id; known providers: faux.",
		);
	});

	it("a bare id: suggests the models whose id contains it", () => {
		expect(notFound(runtimeWith(["claude-sonnet-4", "claude-haiku-4", "gpt-5"]), "sonnet")).toBe(
			"Model not found: sonnet. Did you mean: faux/claude-sonnet-4? Use provider/id; known providers: faux.",
		);
	});

	it("cuts a long list after eight, saying how many more", () => {
		const ids = Array.from({ length: 11 }, (_, i) => `m${i}`);
		expect(notFound(runtimeWith(ids), "faux/x")).toContain("faux serves: m0, m1, m2, m3, m4, m5, m6, m7, … (3 more).");
	});

	it("nothing like it: only the providers", () => {
		expect(notFound(runtimeWith(["a-1"]), "other/zzz")).toBe(
			"Model not found: other/zzz. Use provider/id; known providers: faux.",
		);
	});
});
