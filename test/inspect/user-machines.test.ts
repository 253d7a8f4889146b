/** `settle/inspect`'s exporters on a user's own machine, as the README suggests using them. */

import { describe, expect, it } from "vitest";
import { createMachine } from "xstate";
import { describeMachine } from "../../src/inspect/machine-model.js";
import { toMermaid } from "../../src/inspect/mermaid.js";
import { toSvg } from "../../src/inspect/svg.js";

const door = createMachine({
	id: "door",
	initial: "closed",
	states: {
		closed: { on: { OPEN: "open" } },
		open: {
			type: "parallel",
			on: { CLOSE: "closed" },
			states: {
				light: { initial: "on", states: { on: { on: { OFF: "off" } }, off: {} } },
				alarm: { initial: "quiet", states: { quiet: {}, loud: {} } },
			},
		},
	},
});

describe("toMermaid / toSvg on a user's machine", () => {
	it("regression: the header told users 'Do not edit: run `npm run viz`' (Settle's own script) for their own machines", () => {
		expect(toMermaid(door)).toContain("%% Generated from the machine definition by settle/inspect (toMermaid).\n");
		expect(toMermaid(door)).not.toContain("npm run viz");
		expect(toSvg(door)).toContain("<!-- Generated from the machine definition by settle/inspect (toSvg). -->");
		expect(toSvg(door)).not.toContain("npm run viz");
		expect(toMermaid(door, { regenerateCommand: "make diagrams" })).toContain("Do not edit: run `make diagrams`.");
	});

	it("regression: the regions of a parallel state were drawn as plain nested states (no `--` between them)", () => {
		const lines = toMermaid(door).split("\n");
		const open = lines.findIndex((line) => line.trim() === "state open {");
		const alarm = lines.findIndex((line) => line.trim() === "state open_alarm {");
		expect(open).toBeGreaterThan(-1);
		expect(lines[alarm - 1]!.trim()).toBe("--");
		expect(lines.filter((line) => line.trim() === "--")).toHaveLength(1);
	});

	it("regression: a config or nothing in place of a machine failed with 'Cannot read properties of undefined'", () => {
		expect(() => toSvg({ id: "x", states: {} } as never)).toThrow(
			"Expected an XState machine (createMachine(…) or setup(…).createMachine(…)), got an object without a machine root (a config? pass it to createMachine first).",
		);
		expect(() => toMermaid(undefined as never)).toThrow(/got undefined\.$/);
		expect(() => describeMachine(null as never)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
	});
});
