/**
 * Runs extension factories: the loader in `src/resources` imports modules and hands over
 * `{path, resolvedPath, source, factory}` records; this calls each `factory(pi)` in order.
 */
import { errorMessage } from "../errors.js";
import type { LoadedExtension } from "../resources/types.js";
import { allToolNames } from "../tools/index.js";
import { createEventBus } from "./event-bus.js";
import { whileLoading } from "./loading-now.js";
import { createExtension, createExtensionAPI, type Extension, ExtensionRuntime } from "./runtime.js";
import { thrownAtText } from "./thrown-at.js";
import type { EventBus, ExtensionDiagnostic, ExtensionFactory, ExtensionLoadError } from "./types.js";

/** A record to instantiate: the loader's {@link LoadedExtension} (`source`, `resolvedPath`, `sourceInfo` optional). */
export type ExtensionRecord = Pick<LoadedExtension, "path" | "factory"> &
	Partial<Omit<LoadedExtension, "path" | "factory">>;

/** Options of {@link instantiateExtensions}. */
export interface InstantiateExtensionsOptions {
	/** Session cwd: default cwd of `pi.exec`. */
	cwd: string;
	/** SDK factories run after the records, as `<inline:N>` (numbered after inline records already given). */
	inlineFactories?: readonly ExtensionFactory[];
	/** Shared `pi.events` bus. Pass the previous one on reload so cross-extension channels survive. */
	eventBus?: EventBus;
	/** Flag values to start from (on reload: the previous runner's `getFlagValues()`); defaults fill the rest. */
	flagValues?: ReadonlyMap<string, boolean | string>;
}

/** Extensions whose factories ran, ready for `new ExtensionRunner(result, …)`. */
export interface InstantiatedExtensions {
	/** Extensions whose factory completed, in load order. */
	extensions: Extension[];
	/** Factories that threw or rejected (their extensions are left out). */
	errors: ExtensionLoadError[];
	/** The errors as diagnostics, then warnings (an extension tool that replaces a built-in one). */
	diagnostics: ExtensionDiagnostic[];
	runtime: ExtensionRuntime;
}

/**
 * Calls every factory with its own `pi` object, in order, awaiting async ones. Must not throw: a
 * factory that throws (or calls a session action such as `pi.sendMessage` while loading) becomes
 * an error naming its path, and everything it registered is dropped; the others still load.
 * Provider registrations are queued until the runner is bound.
 *
 * @example
 * ```ts
 * const loaded = await instantiateExtensions(resourceLoader.getExtensions().extensions, { cwd });
 * const runner = new ExtensionRunner(loaded, { cwd, sessionManager });
 * ```
 */
export async function instantiateExtensions(
	records: readonly ExtensionRecord[],
	options: InstantiateExtensionsOptions,
): Promise<InstantiatedExtensions> {
	const runtime = new ExtensionRuntime({
		cwd: options.cwd,
		eventBus: options.eventBus ?? createEventBus(),
		flagValues: options.flagValues,
	});
	const errors: ExtensionLoadError[] = [];
	const diagnostics: ExtensionDiagnostic[] = [];
	const inlineCount = records.filter((record) => record.path.startsWith("<inline:")).length;
	const all: ExtensionRecord[] = [
		...records,
		...(options.inlineFactories ?? []).map((factory, index) => ({
			path: `<inline:${inlineCount + index + 1}>`,
			source: "inline" as const,
			factory,
		})),
	];
	for (const record of all) {
		// The loader's source info (discovered, settings entry, explicit path) goes to the extension and all it registers.
		const extension = createExtension(
			record.path,
			record.resolvedPath ?? record.path,
			record.source,
			record.sourceInfo,
		);
		runtime.extensions.push(extension);
		try {
			if (typeof record.factory !== "function") {
				throw new Error(`Extension does not export a valid factory function: ${record.path}`);
			}
			const factory = record.factory;
			await whileLoading(record.path, "factory", () => factory(createExtensionAPI(extension, runtime)));
		} catch (error) {
			runtime.dropExtension(extension);
			const text = `Failed to load extension: ${errorMessage(error)}${thrownAtText(error, record.resolvedPath ?? record.path)}`;
			errors.push({ path: record.path, error: text });
			diagnostics.push({ type: "error", message: `${text} (${record.path})`, path: record.path });
		}
	}
	for (const conflict of registrationConflicts(runtime.extensions)) {
		errors.push({ path: conflict.path, error: conflict.message });
		diagnostics.push({ type: "error", message: `${conflict.message} (${conflict.path})`, path: conflict.path });
	}
	diagnostics.push(...builtinToolOverrides(runtime.extensions));
	return { extensions: runtime.extensions, errors, diagnostics, runtime };
}

/**
 * Extension tools named as a built-in tool (pi#3553): the extension's replaces the built-in one for
 * the model, which pi does without a word. The override still works; the user hears which file did it.
 */
function builtinToolOverrides(extensions: readonly Extension[]): ExtensionDiagnostic[] {
	const builtins: readonly string[] = allToolNames;
	return extensions.flatMap((extension) =>
		[...extension.tools.keys()]
			.filter((name) => builtins.includes(name))
			.map((name) => ({
				type: "warning" as const,
				message: `Extension "${extension.path}" replaces the built-in tool "${name}": the model gets the extension's ${name}; rename the extension's tool to keep both`,
				path: extension.path,
			})),
	);
}

/**
 * Tools and flags a later extension registers under a name an earlier one already took (pi's
 * `detectExtensionConflicts`): the first registration is used, so the later one would be ignored
 * without a word. Both extensions stay loaded.
 */
function registrationConflicts(extensions: readonly Extension[]): { path: string; message: string }[] {
	const conflicts: { path: string; message: string }[] = [];
	const owners = { Tool: new Map<string, string>(), Flag: new Map<string, string>() };
	for (const extension of extensions) {
		const registered = [
			["Tool", "", extension.tools.keys()],
			["Flag", "--", extension.flags.keys()],
		] as const;
		for (const [kind, prefix, names] of registered) {
			for (const name of names) {
				const owner = owners[kind].get(name);
				if (owner === undefined) owners[kind].set(name, extension.path);
				else
					conflicts.push({
						path: extension.path,
						message: `${kind} "${prefix}${name}" conflicts with ${owner}: the first is used; rename one`,
					});
			}
		}
	}
	return conflicts;
}
