/** Per-request abort signals for provider stream functions. */
import type { AssistantMessageEventStream, StreamFn } from "./types.js";

/**
 * Wraps `streamFn` so that each request gets an abort signal of its own, which follows the caller's
 * signal until the request's stream has ended (its `result()` settled). The provider SDKs pi-ai
 * uses (openai, @anthropic-ai/sdk) add an `abort` listener to the signal of every request and never
 * remove it: given the run's signal, which lives for all the model calls of a run, those listeners
 * piled up (Node's MaxListenersExceededWarning at the 11th call) and kept every request's
 * controller until the run ended. A request without a signal goes through unchanged.
 *
 * @example
 * ```ts
 * declare const proxyStream: StreamFn; // a provider's stream function built on an SDK client
 *
 * const models = new InMemoryModelRuntime();
 * models.registerProvider({ provider: "proxy", models: [model], streamFn: withRequestSignal(proxyStream) });
 * ```
 */
export function withRequestSignal(streamFn: StreamFn): StreamFn {
	return (model, context, options) => {
		const outer = options?.signal;
		if (!outer) return streamFn(model, context, options);
		const controller = new AbortController();
		const forward = () => controller.abort(outer.reason);
		if (outer.aborted) forward();
		else outer.addEventListener("abort", forward, { once: true });
		const release = () => outer.removeEventListener("abort", forward);
		const watch = (stream: AssistantMessageEventStream) => {
			stream.result().then(release, release);
			return stream;
		};
		let started: ReturnType<StreamFn>;
		try {
			started = streamFn(model, context, { ...options, signal: controller.signal });
		} catch (error) {
			release();
			throw error;
		}
		if (!(started instanceof Promise)) return watch(started);
		return started.then(watch, (error: unknown) => {
			release();
			throw error;
		});
	};
}
