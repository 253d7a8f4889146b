/**
 * `settle --inspect [--inspect-port <n>]`: serves the live inspector (`serveInspector` of
 * `settle/inspect`) on the run's runtime — the runtime machine and each session it uses — and
 * prints its URL on stderr. Loaded on demand: the page draws the machines, which a run without
 * `--inspect` never needs.
 */
import { errorMessage, SettleError } from "../errors.js";
import type { InspectorServer } from "../inspect/live-server.js";
import type { AgentSessionRuntime } from "../runtime/runtime.js";
import { EXIT_FAILURE, EXIT_USAGE } from "./help.js";
import { CliError } from "./host.js";
import type { CliOutput } from "./print-mode.js";

/**
 * Starts the inspector on `runtime` and prints `Inspector: <url>` once it listens. A port that is
 * taken is a {@link CliError} (exit 2) naming it; the runtime is disposed then (nothing ran yet).
 *
 * @example
 * ```ts
 * declare const out: { stdout(text: string): void; stderr(text: string): void };
 * const inspector = await startCliInspector(runtime, undefined, out); // stderr: Inspector: http://127.0.0.1:…/…/
 * await runtime.dispose();
 * await inspector.close();
 * ```
 */
export async function startCliInspector(
	runtime: AgentSessionRuntime,
	port: number | undefined,
	out: CliOutput,
): Promise<InspectorServer> {
	try {
		const { serveInspector } = await import("../inspect/live-server.js");
		const inspector = await serveInspector(runtime, { port: port ?? 0 });
		out.stderr(`Inspector: ${inspector.url}\n`);
		return inspector;
	} catch (error) {
		await runtime.dispose();
		if (error instanceof SettleError && error.details?.port !== undefined) {
			throw new CliError(`--inspect-port ${port ?? 0}: ${error.message}`, EXIT_USAGE);
		}
		throw new CliError(`The live inspector could not start: ${errorMessage(error)}`, EXIT_FAILURE);
	}
}
