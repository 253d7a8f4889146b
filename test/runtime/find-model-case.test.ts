/**
 * `findModel` (so `settle --model` and the SDK's `model`) with a bare id in another case than the
 * catalogue's: as pi 0.73.1 it names the model, but the id in the very case typed comes first (pi
 * takes the first model in any case, so a custom `minimax-m2.7` lost to the catalogue's
 * `MiniMax-M2.7`: ai-toolbox#274).
 */
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createFauxProvider } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { findModel } from "../../src/runtime/sdk.js";

/** Two keyed providers: `catalog` registered first (as pi's built-ins are), `custom` after it. */
function runtimeWith(catalog: string[], custom: string[]): InMemoryModelRuntime {
	const runtime = new InMemoryModelRuntime();
	runtime.registerFauxProvider(createFauxProvider({ provider: "catalog", models: catalog.map((id) => ({ id })) }));
	runtime.registerFauxProvider(createFauxProvider({ provider: "custom", models: custom.map((id) => ({ id })) }));
	return runtime;
}

const named = (runtime: InMemoryModelRuntime, spec: string) => {
	const model = findModel(runtime, spec);
	return `${model.provider}/${model.id}`;
};

describe("findModel: a bare id and letter case", () => {
	it("the id as typed wins over a model of another provider whose id differs only in case, both keyed", () => {
		const runtime = runtimeWith(["MiniMax-M2.7"], ["minimax-m2.7"]);
		expect(named(runtime, "minimax-m2.7")).toBe("custom/minimax-m2.7");
		expect(named(runtime, "MiniMax-M2.7")).toBe("catalog/MiniMax-M2.7");
	});

	it("another case names the model when only one serves it, and is ambiguous when two do", () => {
		expect(named(runtimeWith(["gpt-5"], ["coder"]), "CODER")).toBe("custom/coder");
		try {
			findModel(runtimeWith(["MiniMax-M2.7"], ["minimax-m2.7"]), "MINIMAX-M2.7");
			expect.unreachable("an id two providers serve in other cases is ambiguous");
		} catch (error) {
			expect(error).toBeInstanceOf(SettleError);
			expect((error as SettleError).code).toBe("INVALID_ARGUMENT");
			expect((error as SettleError).message).toContain("catalog/MiniMax-M2.7, custom/minimax-m2.7");
		}
	});
});
