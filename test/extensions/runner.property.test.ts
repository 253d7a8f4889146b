import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI, ExtensionFactory, InputEventResult } from "../../src/extensions/types.js";
import type { ImageContent } from "../../src/llm/types.js";
import { runnerWith } from "./helpers.js";

/** What a handler does when it runs: register another handler, remove one, throw. */
interface Behavior {
	/** Extension that gets a new handler (index, taken modulo the extension count). */
	register: number | null;
	/** Which live handler to remove (index into the flattened live list, modulo its length). */
	remove: number | null;
	throws: boolean;
}

interface Plan {
	extensions: number;
	initial: number[];
	behaviors: Behavior[];
	dispatches: number;
}

const planArbitrary: fc.Arbitrary<Plan> = fc.record({
	extensions: fc.integer({ min: 1, max: 4 }),
	initial: fc.array(fc.nat(3), { maxLength: 8 }),
	behaviors: fc.array(
		fc.record({
			register: fc.option(fc.nat(3), { freq: 2 }),
			remove: fc.option(fc.nat(20), { freq: 2 }),
			throws: fc.boolean(),
		}),
		{ minLength: 1, maxLength: 8 },
	),
	dispatches: fc.integer({ min: 1, max: 3 }),
});

/** Live handler ids per extension, in registration order, and the rule that picks a removal target. */
class LiveHandlers {
	readonly byExtension: number[][];
	nextId = 0;
	constructor(extensions: number) {
		this.byExtension = Array.from({ length: extensions }, () => []);
	}
	flattened(): number[] {
		return this.byExtension.flat();
	}
	add(extension: number): number {
		const id = this.nextId++;
		this.byExtension[extension % this.byExtension.length]!.push(id);
		return id;
	}
	/** Removes and returns the target picked by `index`, or undefined when nothing is live. */
	remove(index: number): number | undefined {
		const live = this.flattened();
		if (live.length === 0) return undefined;
		const target = live[index % live.length]!;
		for (const list of this.byExtension) {
			const at = list.indexOf(target);
			if (at >= 0) list.splice(at, 1);
		}
		return target;
	}
}

/** The specified semantics, computed without a runner: each dispatch runs the snapshot taken at its start. */
function expectedRuns(plan: Plan): { order: number[][]; throwing: number[][] } {
	const live = new LiveHandlers(plan.extensions);
	for (const extension of plan.initial) live.add(extension);
	const order: number[][] = [];
	const throwing: number[][] = [];
	for (let d = 0; d < plan.dispatches; d++) {
		const snapshot = live.flattened();
		order.push(snapshot);
		throwing.push([]);
		for (const id of snapshot) {
			const behavior = plan.behaviors[id % plan.behaviors.length]!;
			if (behavior.register !== null) live.add(behavior.register);
			if (behavior.remove !== null) live.remove(behavior.remove);
			if (behavior.throws) throwing[d]!.push(id);
		}
	}
	return { order, throwing };
}

describe("dispatch properties", () => {
	it("every dispatch runs exactly the handlers live at its start, in load then registration order", async () => {
		await fc.assert(
			fc.asyncProperty(planArbitrary, async (plan) => {
				const live = new LiveHandlers(plan.extensions);
				const apis: ExtensionAPI[] = [];
				const unsubscribe = new Map<number, () => void>();
				const ran: number[] = [];
				const register = (extension: number) => {
					const id = live.add(extension);
					const api = apis[extension % plan.extensions]!;
					unsubscribe.set(
						id,
						api.on("agent_start", () => {
							ran.push(id);
							const behavior = plan.behaviors[id % plan.behaviors.length]!;
							if (behavior.register !== null) register(behavior.register);
							if (behavior.remove !== null) {
								const target = live.remove(behavior.remove);
								if (target !== undefined) unsubscribe.get(target)!();
							}
							if (behavior.throws) throw new Error(String(id));
						}),
					);
				};
				const factories: ExtensionFactory[] = Array.from({ length: plan.extensions }, () => (pi) => {
					apis.push(pi);
				});
				const { runner, errors } = await runnerWith(...factories);
				for (const extension of plan.initial) register(extension);

				const expected = expectedRuns(plan);
				for (let d = 0; d < plan.dispatches; d++) {
					ran.length = 0;
					errors.length = 0;
					await runner.emit({ type: "agent_start" });
					expect(ran).toEqual(expected.order[d]);
					expect(errors.map((e) => Number(e.error))).toEqual(expected.throwing[d]);
				}
			}),
			{ numRuns: 150 },
		);
	});

	it("command invocation names are unique and resolve back to their command", async () => {
		const registration = fc.record({ extension: fc.nat(3), name: fc.constantFrom("a", "b", "a:1", "a:2", "b:1") });
		await fc.assert(
			fc.asyncProperty(fc.array(registration, { maxLength: 12 }), async (registrations) => {
				const factories: ExtensionFactory[] = [0, 1, 2, 3].map((extension) => (pi) => {
					for (const r of registrations) {
						if (r.extension === extension) pi.registerCommand(r.name, { handler: async () => {} });
					}
				});
				const { runner } = await runnerWith(...factories);
				const commands = runner.getRegisteredCommands();
				const invocationNames = commands.map((c) => c.invocationName);
				expect(new Set(invocationNames).size).toBe(invocationNames.length);
				// One entry per (extension, name): re-registering in the same extension replaces.
				const distinct = new Set(registrations.map((r) => `${r.extension}/${r.name}`));
				expect(commands).toHaveLength(distinct.size);
				const counts = new Map<string, number>();
				for (const key of distinct) {
					const name = key.slice(key.indexOf("/") + 1);
					counts.set(name, (counts.get(name) ?? 0) + 1);
				}
				for (const command of commands) {
					expect(runner.getCommand(command.invocationName)).toMatchObject({ name: command.name });
					if (
						counts.get(command.name) === 1 &&
						!commands.some((c) => c !== command && c.invocationName === command.name)
					) {
						expect(command.invocationName).toBe(command.name);
					}
				}
			}),
			{ numRuns: 200 },
		);
	});

	it("input results fold as specified: transforms chain, handled stops, images kept unless replaced", async () => {
		const result: fc.Arbitrary<InputEventResult | undefined> = fc.oneof(
			fc.constant(undefined),
			fc.constant({ action: "continue" as const }),
			fc.constant({ action: "handled" as const }),
			fc.record({ action: fc.constant("transform" as const), text: fc.string({ maxLength: 4 }) }),
			fc.record({
				action: fc.constant("transform" as const),
				text: fc.string({ maxLength: 4 }),
				images: fc.constant<ImageContent[]>([{ type: "image", data: "x", mimeType: "image/png" }]),
			}),
		);
		await fc.assert(
			fc.asyncProperty(fc.array(result, { maxLength: 6 }), fc.string({ maxLength: 4 }), async (results, text) => {
				const seenTexts: string[] = [];
				const { runner } = await runnerWith(
					...results.map(
						(value): ExtensionFactory =>
							(pi) => {
								pi.on("input", (event) => {
									seenTexts.push(event.text);
									return value;
								});
							},
					),
				);
				let expectedText = text;
				let expectedImages: unknown;
				const expectedSeen: string[] = [];
				let expected: InputEventResult | undefined;
				for (const value of results) {
					expectedSeen.push(expectedText);
					if (value?.action === "handled") {
						expected = { action: "handled" };
						break;
					}
					if (value?.action === "transform") {
						expectedText = value.text;
						expectedImages = value.images ?? expectedImages;
					}
				}
				expected ??=
					expectedText === text && expectedImages === undefined
						? { action: "continue" }
						: expectedImages === undefined
							? { action: "transform", text: expectedText }
							: ({ action: "transform", text: expectedText, images: expectedImages } as InputEventResult);
				expect(await runner.emitInput(text, undefined, "interactive")).toEqual(expected);
				expect(seenTexts).toEqual(expectedSeen);
			}),
			{ numRuns: 200 },
		);
	});
});
