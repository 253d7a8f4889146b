/**
 * Reports about the thinking level across model switches, replayed against Settle through its
 * public API with real settings files. A user on `xhigh` switches to a model whose ladder stops at
 * `high`, then back: the level stays `high`, `xhigh` lost for good, because the switch saved the
 * clamped level as `defaultThinkingLevel` (pi#6329; the same clamp to `off` on a model that cannot
 * reason, pi#1861, which Settle already kept out of the settings). What the user should see: the
 * narrower model runs at what it supports, and the level they picked comes back with a model that
 * supports it; `settings.json` keeps their choice. pi#1789: cycling scoped models (`--models`), one
 * that cannot reason and none with an explicit level, left thinking `off` on the way back.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type LiveProject, openProject } from "../session/env-helpers.js";

let p: LiveProject | undefined;
afterEach(() => {
	p?.cleanup();
	p = undefined;
});

/** `wide` names `xhigh`, `narrow` stops at `high`, `plain` cannot reason. */
const MODELS = [
	{ id: "wide", reasoning: true, thinkingLevelMap: { xhigh: "xhigh" } },
	{ id: "narrow", reasoning: true },
	{ id: "plain" },
];

function savedDefault(project: LiveProject): unknown {
	return JSON.parse(readFileSync(join(project.agentDir, "settings.json"), "utf8")).defaultThinkingLevel;
}

describe("pi#6329: thinking level lost when switching between models with different reasoning ladders", () => {
	it("pi#6329: xhigh → a model without xhigh (high) → back: xhigh again; settings.json keeps xhigh; the session records each level", async () => {
		p = await openProject({ faux: { models: MODELS } });
		const model = (id: string) => p!.modelRuntime.getModel("faux", id)!;
		expect(p.session.model?.id).toBe("wide");
		p.session.setThinkingLevel("xhigh");
		expect(savedDefault(p)).toBe("xhigh");

		await p.session.setModel(model("narrow"));
		expect(p.session.thinkingLevel).toBe("high");
		expect(savedDefault(p)).toBe("xhigh");
		await p.session.setModel(model("wide"));
		expect(p.session.thinkingLevel).toBe("xhigh");

		// pi#1861's path, through a model that cannot reason: off there, xhigh back.
		await p.session.setModel(model("plain"));
		expect(p.session.thinkingLevel).toBe("off");
		await p.session.setModel(model("wide"));
		expect(p.session.thinkingLevel).toBe("xhigh");
		expect(savedDefault(p)).toBe("xhigh");

		const recorded = p.sessionManager
			.getEntries()
			.flatMap((entry) => (entry.type === "thinking_level_change" ? [entry.thinkingLevel] : []));
		expect(recorded.slice(-5)).toEqual(["xhigh", "high", "xhigh", "off", "xhigh"]);
	});

	it("pi#6329: cycleModel through the narrower model restores xhigh the same way", async () => {
		p = await openProject({ faux: { models: MODELS.slice(0, 2) } });
		p.session.setThinkingLevel("xhigh");
		const there = await p.session.cycleModel();
		expect(there).toMatchObject({ model: { id: "narrow" }, thinkingLevel: "high" });
		const back = await p.session.cycleModel();
		expect(back).toMatchObject({ model: { id: "wide" }, thinkingLevel: "xhigh" });
		expect(savedDefault(p)).toBe("xhigh");
	});

	it("pi#6329: a level the user picks on the narrower model is their new choice and is saved", async () => {
		p = await openProject({ faux: { models: MODELS.slice(0, 2) } });
		p.session.setThinkingLevel("xhigh");
		await p.session.setModel(p.modelRuntime.getModel("faux", "narrow")!);
		p.session.setThinkingLevel("low");
		expect(savedDefault(p)).toBe("low");
		await p.session.setModel(p.modelRuntime.getModel("faux", "wide")!);
		expect(p.session.thinkingLevel).toBe("low");
	});
});

describe("a level set on a model that cannot reason", () => {
	it("off set on a model that cannot reason stays off after a switch to one that can; pi 0.73.1 takes defaultThinkingLevel there", async () => {
		p = await openProject({ faux: { models: MODELS } });
		await p.session.setModel(p.modelRuntime.getModel("faux", "plain")!);
		p.session.setThinkingLevel("off");
		await p.session.setModel(p.modelRuntime.getModel("faux", "narrow")!);
		expect(p.session.thinkingLevel).toBe("off");
	});
});

describe("pi#1789: cycling scoped models, one without an explicit thinking level, resets thinking to off", () => {
	it("pi#1789: --models plain,wide (no level on either): medium on wide → cycle to plain (off) → cycle back: medium again; settings keep medium", async () => {
		p = await openProject({ faux: { models: MODELS } });
		const model = (id: string) => p!.modelRuntime.getModel("faux", id)!;
		p.session.setScopedModels([{ model: model("plain") }, { model: model("wide") }]);
		p.session.setThinkingLevel("medium");
		const there = await p.session.cycleModel();
		expect(there).toMatchObject({ model: { id: "plain" }, thinkingLevel: "off", isScoped: true });
		const back = await p.session.cycleModel();
		expect(back).toMatchObject({ model: { id: "wide" }, thinkingLevel: "medium", isScoped: true });
		expect(p.session.thinkingLevel).toBe("medium");
		expect(savedDefault(p)).toBe("medium");
	});
});
