/**
 * Model and thinking-level changes (behavior C.12) compared with pi 0.73.1 on the same scripts:
 * which thinking level a model switch picks, clamping, what is written to the session file and to
 * settings, and what extensions (`model_select`, `thinking_level_select`) and subscribers
 * (`thinking_level_changed`) see — including the calls that change nothing.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { FAUX_KEY, fauxModels, onBothPeers, type Peer, type PeerOptions } from "./peers.js";

interface ModelLike {
	provider: string;
	id: string;
}

/** The surface of both products' sessions these scenarios use (the names are pi's). */
interface ModelApi {
	setModel(model: ModelLike): Promise<void>;
	cycleModel(
		direction?: "forward" | "backward",
	): Promise<{ model: ModelLike; thinkingLevel: string; isScoped: boolean } | undefined>;
	setThinkingLevel(level: string): void;
	readonly thinkingLevel: string;
	readonly model: ModelLike | undefined;
	readonly settingsManager: {
		getDefaultModel(): string | undefined;
		getDefaultProvider(): string | undefined;
		getDefaultThinkingLevel(): string | undefined;
	};
}

/** `faux/<id>` from each product's own model registry. */
function fauxModel(peer: Peer, id: string): ModelLike {
	const session = peer.session as unknown as {
		modelRegistry?: { find(provider: string, id: string): ModelLike | undefined };
		modelRuntime?: { getModel(provider: string, id: string): ModelLike | undefined };
	};
	const model =
		peer.name === "pi" ? session.modelRegistry?.find("faux", id) : session.modelRuntime?.getModel("faux", id);
	if (!model) throw new Error(`${peer.name}: faux/${id} not registered`);
	return model;
}

/**
 * pi's in-memory `ModelRegistry` does not list the models pi-ai's faux provider streams for, so
 * `getAvailable()` (what `cycleModel` walks) and `find` would not see them; register them there as
 * an extension's `pi.registerProvider` would. Settle's runtime lists a registered faux provider's
 * models already.
 */
function listFauxModelsInPiRegistry(peer: Peer, options: PeerOptions): void {
	if (peer.name !== "pi") return;
	const session = peer.session as unknown as {
		model: { api: string; baseUrl: string };
		modelRegistry: { registerProvider(name: string, config: object): void };
	};
	const { api, baseUrl } = session.model;
	session.modelRegistry.registerProvider("faux", {
		api,
		baseUrl,
		apiKey: FAUX_KEY,
		models: fauxModels(options.contextWindow, options.reasoningModel),
	});
}

/** An extension logging what `model_select` and `thinking_level_select` handlers receive. */
function selectLogger(log: string[]) {
	return (api: ExtensionAPI) => {
		api.on("model_select", (event) => {
			log.push(`model_select ${event.source} ${event.previousModel?.id ?? "-"} -> ${event.model.id}`);
		});
		api.on("thinking_level_select", (event) => {
			log.push(`thinking_level_select ${event.previousLevel} -> ${event.level}`);
		});
	};
}

/** Runs `steps` (each labelled) on a session that answered one prompt, and records what each changed. */
async function observeChanges(peer: Peer, log: string[], steps: [string, (session: ModelApi) => Promise<unknown>][]) {
	const session = peer.session as unknown as ModelApi;
	peer.script([{ text: "ok" }]);
	await peer.prompt("hello");
	await peer.quiesce();
	const trace: string[] = [];
	for (const [label, step] of steps) {
		const before = { events: peer.recorded.length, entries: peer.fileEntries().length, log: log.length };
		const returned = await step(session);
		// `thinking_level_select` is emitted without being awaited in both products.
		await new Promise<void>((resolve) => setImmediate(resolve));
		const entries = peer
			.fileEntries()
			.slice(before.entries)
			.flatMap((entry) =>
				entry.type === "model_change"
					? [`entry model_change ${String(entry.provider)}/${String(entry.modelId)}`]
					: entry.type === "thinking_level_change"
						? [`entry thinking_level_change ${String(entry.thinkingLevel)}`]
						: [],
			);
		const events = peer.recorded
			.slice(before.events)
			.flatMap((r) =>
				r.kind === "event" && r.event.type === "thinking_level_changed" ? [`event ${r.event.level}`] : [],
			);
		const settings = session.settingsManager;
		trace.push(
			`${label}: ${session.model?.id} ${session.thinkingLevel}` +
				(returned === undefined ? "" : ` returned ${JSON.stringify(returned)}`),
			...entries,
			...events,
			...log.slice(before.log),
			`settings ${settings.getDefaultProvider()}/${settings.getDefaultModel()} ${settings.getDefaultThinkingLevel()}`,
		);
	}
	return trace;
}

const setModel = (id: string) => (peer: Peer) => async (session: ModelApi) => {
	await session.setModel(fauxModel(peer, id));
	return undefined;
};
/** Scopes the session to the faux models `entries` name, each with its thinking level when one is given. */
const setScope =
	(...entries: [id: string, thinkingLevel?: string][]) =>
	(peer: Peer) =>
	async (session: ModelApi) => {
		(session as unknown as { setScopedModels(models: object[]): void }).setScopedModels(
			entries.map(([id, thinkingLevel]) => ({
				model: fauxModel(peer, id),
				...(thinkingLevel ? { thinkingLevel } : {}),
			})),
		);
		return undefined;
	};
const setLevel = (level: string) => async (session: ModelApi) => {
	session.setThinkingLevel(level);
	return undefined;
};
const cycle = (direction: "forward" | "backward") => async (session: ModelApi) => {
	const result = await session.cycleModel(direction);
	return result ? { model: result.model.id, thinkingLevel: result.thinkingLevel, isScoped: result.isScoped } : "none";
};

async function bothPeers(
	options: PeerOptions,
	steps: (peer: Peer) => [string, (session: ModelApi) => Promise<unknown>][],
) {
	const logs: Record<string, string[]> = { pi: [], settle: [] };
	return onBothPeers(
		(name) => ({ ...options, extensions: [selectLogger(logs[name] ?? [])] }),
		(peer) => {
			listFauxModelsInPiRegistry(peer, options);
			return observeChanges(peer, logs[peer.name] ?? [], steps(peer));
		},
	);
}

describe("parity: model and thinking-level changes (C.12)", () => {
	it("setModel picks the thinking level (kept on a reasoning model, settings default or medium from one without), clamps it, and records each change once", async () => {
		const { pi, settle } = await bothPeers({ reasoningModel: true }, (peer) => [
			["setModel faux-2 from a model without reasoning", setModel("faux-2")(peer)],
			["setThinkingLevel xhigh", setLevel("xhigh")],
			["setThinkingLevel to the current level", setLevel("high")],
			["setModel to the current model", setModel("faux-2")(peer)],
			["setModel faux-1", setModel("faux-1")(peer)],
			["setThinkingLevel high without reasoning", setLevel("high")],
			["setModel faux-2 again", setModel("faux-2")(peer)],
		]);
		// pi's own answers, so a change on either side shows here and not only in the comparison.
		expect(pi[0]).toBe("setModel faux-2 from a model without reasoning: faux-2 medium");
		expect(pi).toContain("model_select set faux-1 -> faux-2");
		expect(pi).toContain("setModel faux-1: faux-1 off");
		expect(settle).toEqual(pi);
	});

	it("a default thinking level in settings is what a switch from a model without reasoning starts with", async () => {
		const { pi, settle } = await bothPeers(
			{ reasoningModel: true, settings: { defaultThinkingLevel: "low" } },
			(peer) => [
				["setModel faux-2", setModel("faux-2")(peer)],
				["setModel faux-1", setModel("faux-1")(peer)],
				["setModel faux-2 again", setModel("faux-2")(peer)],
			],
		);
		expect(pi[0]).toBe("setModel faux-2: faux-2 low");
		expect(settle).toEqual(pi);
	});

	it("cycleModel wraps around the available models both ways with source cycle, keeping a reasoning model's level", async () => {
		const { pi, settle } = await bothPeers({ reasoningModel: true, startOnReasoningModel: true }, () => [
			["setThinkingLevel high", setLevel("high")],
			["cycleModel forward", cycle("forward")],
			["cycleModel forward again", cycle("forward")],
			["cycleModel backward", cycle("backward")],
		]);
		expect(pi).toContain("model_select cycle faux-2 -> faux-1");
		expect(settle).toEqual(pi);
	});

	it("cycleModel with one available model returns undefined and changes nothing", async () => {
		const { pi, settle } = await bothPeers({}, () => [["cycleModel", cycle("forward")]]);
		expect(pi[0]).toBe('cycleModel: faux-1 off returned "none"');
		expect(settle).toEqual(pi);
	});
	it("pi#9580, a deliberate difference: a scope of one model that is not the current one; pi 0.73.1 stays, Settle cycles to it", async () => {
		const { pi, settle } = await bothPeers({ reasoningModel: true }, (peer) => [
			["setScopedModels", setScope(["faux-2"])(peer)],
			["cycleModel forward", cycle("forward")],
			["cycleModel forward again", cycle("forward")],
		]);
		expect(pi).toContain('cycleModel forward: faux-1 off returned "none"');
		expect(settle).toContain(
			'cycleModel forward: faux-2 medium returned {"model":"faux-2","thinkingLevel":"medium","isScoped":true}',
		);
		expect(settle).toContain("model_select cycle faux-1 -> faux-2");
		expect(settle).toContain('cycleModel forward again: faux-2 medium returned "none"');
	});

	it("cycleModel with scoped models cycles only those, applying each one's own thinking level (else keeping the current one)", async () => {
		const { pi, settle } = await bothPeers({ reasoningModel: true }, (peer) => [
			["setScopedModels", setScope(["faux-2", "minimal"], ["faux-1"])(peer)],
			["cycleModel forward", cycle("forward")],
			["setThinkingLevel high", setLevel("high")],
			["cycleModel forward again", cycle("forward")],
			["cycleModel backward", cycle("backward")],
		]);
		expect(pi).toContain(
			'cycleModel forward: faux-2 minimal returned {"model":"faux-2","thinkingLevel":"minimal","isScoped":true}',
		);
		expect(settle).toEqual(pi);
	});

	it("modelThinkingLevels (newer pi): Settle starts a switch at the model's own level, pi 0.73.1 ignores the key; everything else matches", async () => {
		const { pi, settle } = await bothPeers(
			{
				reasoningModel: true,
				settings: { defaultThinkingLevel: "low", modelThinkingLevels: { "faux/faux-2": "high" } },
			},
			(peer) => [
				["setModel faux-2", setModel("faux-2")(peer)],
				["setModel faux-1", setModel("faux-1")(peer)],
			],
		);
		// The named difference: the level faux-2 starts with (and what follows from it: pi saves its
		// level as the default, Settle leaves the default alone for a model's own level).
		const difference = {
			pi: [
				"setModel faux-2: faux-2 low",
				"entry thinking_level_change low",
				"event low",
				"thinking_level_select off -> low",
			],
			settle: [
				"setModel faux-2: faux-2 high",
				"entry thinking_level_change high",
				"event high",
				"thinking_level_select off -> high",
			],
		};
		expect(pi.slice(0, 1)).toEqual(difference.pi.slice(0, 1));
		expect(settle.slice(0, 1)).toEqual(difference.settle.slice(0, 1));
		const without = (trace: string[], lines: string[]) => trace.filter((line) => !lines.includes(line));
		expect(without(settle, difference.settle)).toEqual(
			without(pi, difference.pi).map((line) =>
				line.replace("thinking_level_select low -> off", "thinking_level_select high -> off"),
			),
		);
		expect(pi).toContain("settings faux/faux-2 low");
		expect(settle).toContain("settings faux/faux-2 low");
	});
});
