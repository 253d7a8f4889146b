/**
 * pi 0.73.1's model scope (`--models`, the `enabledModels` setting): patterns resolved to the
 * models `cycleModel` goes through, as pi's `resolveModelScope` does.
 */

import type { ScopedModel } from "../extensions/types.js";
import { loadPicomatch } from "../lazy-deps.js";
import { THINKING_LEVELS } from "../llm/model-runtime.js";
import type { Model, ThinkingLevel } from "../llm/types.js";

/** {@link resolveModelScope}'s answer: the scope, and pi's warnings for the patterns that matched nothing. */
export interface ModelScope {
	scopedModels: ScopedModel[];
	/** `No models match pattern "x"`, `Invalid thinking level "y" in pattern "x:y". Using default instead.` */
	warnings: string[];
}

const isThinkingLevel = (text: string): text is ThinkingLevel => (THINKING_LEVELS as readonly string[]).includes(text);
const sameModel = (a: Model, b: Model) => a.provider === b.provider && a.id === b.id;
/** An id without a date suffix (`-20250929`), or ending in `-latest`: pi prefers these. */
const isAlias = (id: string) => id.endsWith("-latest") || !/-\d{8}$/.test(id);

/**
 * pi's `findExactModelReferenceMatch`: `provider/id` or a bare id (which may contain a slash itself,
 * as `minimaxai/minimax-m2.5`), case-insensitively; ambiguous is no match, except a bare id that
 * `preferredProvider` (the settings' `defaultProvider`) serves among others: its model (pi#1419).
 * `--models` scopes, `--model` and `settle -i`'s `/model <ref>` resolve through it (openclaw#44498).
 *
 * @example
 * ```ts
 * const model = exactModelMatch("minimaxai/minimax-m2.5", modelRuntime.getAvailable()); // nvidia's model with that id
 * ```
 */
export function exactModelMatch(
	reference: string,
	available: readonly Model[],
	preferredProvider?: string,
): Model | undefined {
	const trimmed = reference.trim();
	if (!trimmed) return undefined;
	const lower = trimmed.toLowerCase();
	const canonical = available.filter((m) => `${m.provider}/${m.id}`.toLowerCase() === lower);
	if (canonical.length > 0) return canonical.length === 1 ? canonical[0] : undefined;
	const slash = trimmed.indexOf("/");
	if (slash !== -1) {
		const provider = trimmed.slice(0, slash).trim().toLowerCase();
		const id = trimmed
			.slice(slash + 1)
			.trim()
			.toLowerCase();
		if (provider && id) {
			const both = available.filter((m) => m.provider.toLowerCase() === provider && m.id.toLowerCase() === id);
			if (both.length > 0) return both.length === 1 ? both[0] : undefined;
		}
	}
	const byId = available.filter((m) => m.id.toLowerCase() === lower);
	return byId.length === 1 ? byId[0] : preferredAmong(byId, preferredProvider);
}

/** The one of several same-id models that `provider` serves (the settings' `defaultProvider`), if any. */
export function preferredAmong(models: readonly Model[], provider: string | undefined): Model | undefined {
	const preferred = provider === undefined ? [] : models.filter((m) => m.provider === provider);
	return preferred.length === 1 ? preferred[0] : undefined;
}

/**
 * pi 0.73.1's `tryMatchModel`: `pattern` as `provider/id` or an id, case-insensitively (ambiguous is
 * no match), else the models whose id or name contains it (an alias first, else the latest dated
 * id). Shared by `--models` scopes and `--model` / `--provider` ({@link findModel}).
 *
 * @example
 * ```ts
 * const models = modelRuntime.getAll().filter((model) => model.provider === "anthropic");
 * matchModel("Sonnet", models); // anthropic's newest sonnet alias, as pi's --model sonnet
 * ```
 */
export function matchModel(
	pattern: string,
	available: readonly Model[],
	preferredProvider?: string,
): Model | undefined {
	const exact = exactModelMatch(pattern, available, preferredProvider);
	if (exact) return exact;
	const matches = partialModelMatches(pattern, available);
	const aliases = matches.filter((m) => isAlias(m.id));
	const pool = aliases.length > 0 ? aliases : matches;
	return [...pool].sort((a, b) => b.id.localeCompare(a.id))[0];
}

/** pi's partial match: the models whose id or name holds `pattern` (any case), before {@link matchModel} picks one. */
export function partialModelMatches(pattern: string, available: readonly Model[]): Model[] {
	const lower = pattern.toLowerCase();
	return available.filter((m) => m.id.toLowerCase().includes(lower) || m.name?.toLowerCase().includes(lower));
}

/** pi's `parseModelPattern` (scope mode): the model, then `:<thinking>` suffixes peeled off from the right. */
function parsePattern(
	pattern: string,
	available: readonly Model[],
	preferredProvider: string | undefined,
): { model?: Model; thinkingLevel?: ThinkingLevel; warning?: string } {
	const model = matchModel(pattern, available, preferredProvider);
	if (model) return { model };
	const colon = pattern.lastIndexOf(":");
	if (colon === -1) return {};
	const suffix = pattern.slice(colon + 1);
	const inner = parsePattern(pattern.slice(0, colon), available, preferredProvider);
	if (!inner.model) return inner;
	if (isThinkingLevel(suffix)) return inner.warning ? inner : { model: inner.model, thinkingLevel: suffix };
	return {
		model: inner.model,
		warning: `Invalid thinking level "${suffix}" in pattern "${pattern}". Using default instead.`,
	};
}

/**
 * Resolves model patterns (pi's `--models a,b` / `enabledModels`) among `available` models, as pi
 * 0.73.1 does: `provider/id` or an id (exact, else the ids and names containing it), a glob
 * (`anthropic/*`, `*sonnet*`: against `provider/id` and the id; a model whose id is the pattern
 * itself, as `custom/model[1m]`, wins over the glob, as later pi's: pi#6210) and a `:<thinking>` suffix
 * (`sonnet:high`) fixing that model's thinking level. In pattern order, without duplicates. A bare
 * id several providers serve is `preferredProvider`'s model when it is one of them (pi#1419).
 *
 * @example
 * ```ts
 * const { scopedModels, warnings } = resolveModelScope(["faux/*:low", "nope"], modelRuntime.getAvailable());
 * // warnings: ['No models match pattern "nope"']
 * ```
 */
export function resolveModelScope(
	patterns: readonly string[],
	available: readonly Model[],
	preferredProvider?: string,
): ModelScope {
	const scopedModels: ScopedModel[] = [];
	const warnings: string[] = [];
	const add = (model: Model, thinkingLevel: ThinkingLevel | undefined) => {
		if (scopedModels.some((scoped) => sameModel(scoped.model, model))) return;
		scopedModels.push(thinkingLevel ? { model, thinkingLevel } : { model });
	};
	for (const pattern of patterns) {
		// A literal id first: `custom/model[1m]` names that model, not the glob class "1 or m" (pi#6210).
		const literal = literalModelReference(pattern, available, preferredProvider);
		if (literal) {
			add(literal.model, literal.thinkingLevel);
			continue;
		}
		if (pattern.includes("*") || pattern.includes("?") || pattern.includes("[")) {
			const colon = pattern.lastIndexOf(":");
			const suffix = colon === -1 ? "" : pattern.slice(colon + 1);
			const thinkingLevel = isThinkingLevel(suffix) ? suffix : undefined;
			const glob = thinkingLevel ? pattern.slice(0, colon) : pattern;
			const isMatch = loadPicomatch()(glob, { nocase: true });
			const matching = available.filter((m) => isMatch(`${m.provider}/${m.id}`) || isMatch(m.id));
			if (matching.length === 0) warnings.push(`No models match pattern "${pattern}"`);
			for (const model of matching) add(model, thinkingLevel);
			continue;
		}
		const { model, thinkingLevel, warning } = parsePattern(pattern, available, preferredProvider);
		if (warning) warnings.push(warning);
		if (model) add(model, thinkingLevel);
		else warnings.push(`No models match pattern "${pattern}"`);
	}
	return { scopedModels, warnings };
}

/**
 * A glob-looking pattern that is a model's exact reference (`custom/model[1m]`, with or without a
 * `:<thinking>` suffix). Undefined for plain patterns: those resolve through {@link parsePattern}.
 */
function literalModelReference(
	pattern: string,
	available: readonly Model[],
	preferredProvider: string | undefined,
): { model: Model; thinkingLevel?: ThinkingLevel } | undefined {
	if (!/[*?[]/.test(pattern)) return undefined;
	const model = exactModelMatch(pattern, available, preferredProvider);
	if (model) return { model };
	const colon = pattern.lastIndexOf(":");
	const suffix = pattern.slice(colon + 1);
	if (colon === -1 || !isThinkingLevel(suffix)) return undefined;
	const inner = exactModelMatch(pattern.slice(0, colon), available, preferredProvider);
	return inner ? { model: inner, thinkingLevel: suffix } : undefined;
}

/**
 * pi's start-up model for a scope (`--models` without `--model`, in a session with no messages
 * yet): the settings' default model when it is in the scope, else the first scoped model, each
 * with its pattern's thinking level. Undefined for an empty scope.
 *
 * @example
 * ```ts
 * const { scopedModels } = resolveModelScope(["big:high", "small"], modelRuntime.getAvailable());
 * scopeStartModel(scopedModels, { provider: "local", id: "small" }); // small's entry (in the scope), else big's
 * ```
 */
export function scopeStartModel(
	scopedModels: readonly ScopedModel[],
	savedDefault: { provider: string; id: string } | undefined,
): ScopedModel | undefined {
	const saved = savedDefault
		? scopedModels.find(
				(scoped) => scoped.model.provider === savedDefault.provider && scoped.model.id === savedDefault.id,
			)
		: undefined;
	return saved ?? scopedModels[0];
}
