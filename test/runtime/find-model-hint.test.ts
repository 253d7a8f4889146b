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
	it("pi's <model>:<thinking> shorthand: says how Settle takes the level, when the model exists", () => {
		const runtime = runtimeWith(["sonnet-4", "qwen:7b"]);
		expect(notFound(runtime, "sonnet-4:high")).toBe(
			'Model not found: sonnet-4:high. Settle takes the thinking level apart, not as pi\'s ":high" suffix: settle --model faux/sonnet-4 --thinking high (in code: model: "faux/sonnet-4", thinkingLevel: "high").',
		);
		expect(notFound(runtime, "faux/sonnet-4:xhigh")).toContain("settle --model faux/sonnet-4 --thinking xhigh");
		// Not a thinking level, or no such model without it: the usual message.
		expect(findModel(runtime, "qwen:7b").id).toBe("qwen:7b");
		expect(notFound(runtime, "opus:high")).toMatch(/^Model not found: opus:high\. Use provider\/id/);
		expect(notFound(runtime, "sonnet-4:loud")).not.toContain("thinking level apart");
	});

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
