/**
 * The extension modules being imported and the factories being awaited right now, for a process
 * that stops or stalls before the session exists (Fusion#3579: "Loading extensions…" for minutes,
 * nothing saying which one). Loading is still waited for as long as it takes, as in pi.
 */

const loading = new Map<string, "module" | "factory">();

/** Awaits `work`, the `phase` of loading the extension at `path`, listed meanwhile. */
export async function whileLoading<T>(
	path: string,
	phase: "module" | "factory",
	work: () => Promise<T> | T,
): Promise<T> {
	loading.set(path, phase);
	try {
		return await work();
	} finally {
		loading.delete(path);
	}
}

/** What is loading now, one line each ("<path> (its factory has not returned)"); "" when nothing is. */
export function extensionsLoadingNow(): string {
	return [...loading]
		.map(
			([path, phase]) =>
				`  ${path} (${phase === "module" ? "its module is still being imported" : "its factory has not returned"})\n`,
		)
		.join("");
}
