/**
 * The reader's per-line check (`isWellShaped`, allocation-free for the hot loop) and the
 * diagnostic (`entryFieldProblem`) must agree on every entry: an entry the fast path takes as it is
 * must have nothing to report, and one it hands to the slow path must be reported or skipped.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	contextContent,
	entryFieldProblem,
	hasMessageObject,
	isUsableContent,
	isWellShaped,
} from "../../src/store/entry-shape.js";

const value = fc.oneof(fc.constantFrom(undefined, null, 42, "", "text", true), fc.constant({}), fc.constant([]));
const block = fc.oneof(
	value,
	fc.record({
		type: fc.constantFrom("text", "image", "thinking", "toolCall", "video", 7),
		text: value,
	}),
);
const content = fc.oneof(value, fc.array(block, { maxLength: 4 }));
const entry = fc.oneof(
	fc.record({
		type: fc.constant("message"),
		message: fc.oneof(
			value,
			fc.record({ role: fc.constantFrom("user", "assistant", "toolResult", "system", "custom", 42), content }),
		),
	}),
	fc.record({ type: fc.constant("custom_message"), content }),
	fc.record({ type: fc.constantFrom("compaction", "branch_summary"), summary: value }),
	fc.record({ type: fc.constant("session_info"), name: value }),
	fc.record({ type: fc.constant("label"), label: value }),
	fc.record({ type: fc.constantFrom("custom", "model_change"), data: value }),
);

describe("entry shapes", () => {
	it("isWellShaped is exactly: a readable message object and no field problem", () => {
		fc.assert(
			fc.property(entry, (e) => {
				const readable = e.type !== "message" || hasMessageObject(e);
				expect(isWellShaped(e)).toBe(readable && entryFieldProblem(e as never) === undefined);
			}),
			{ numRuns: 2000 },
		);
	});

	it("contextContent returns usable content, the same value when it already was", () => {
		fc.assert(
			fc.property(content, (c) => {
				const read = contextContent(c);
				expect(isUsableContent(read)).toBe(true);
				if (isUsableContent(c)) expect(read).toBe(c);
			}),
			{ numRuns: 1000 },
		);
	});
});
