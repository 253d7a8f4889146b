/**
 * Bytes arriving on a provider's response, seen below the provider clients: an SSE keep-alive
 * (`: keepalive` comments, OpenRouter's `: OPENROUTER PROCESSING`, Anthropic's `ping`) proves the
 * connection alive but gives no stream event, so a watchdog timing events alone cut live requests
 * during a long prefill and resent them, over and over (jcode#976, ante#187).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { StreamFn } from "./types.js";

const listeners = new AsyncLocalStorage<() => void>();
// Marks the wrapper, so a `fetch` another library put in its place later is wrapped in turn.
const WATCHING = Symbol("settle.responseActivity");

/**
 * Runs `request` with `onBytes` called whenever its `fetch` responses deliver bytes: once at the
 * response headers, then at every chunk of an event-stream body. It wraps `globalThis.fetch` (if
 * not wrapped already); requests made outside `watchResponseActivity` pass through untouched.
 *
 * @example
 * ```ts
 * let lastByteAt = 0;
 * // In `request`, every fetch's headers and event-stream chunks update `lastByteAt`.
 * const result = watchResponseActivity(
 * 	() => (lastByteAt = Date.now()),
 * 	() => "whatever the request returns",
 * );
 * ```
 */
export function watchResponseActivity<T>(onBytes: () => void, request: () => T): T {
	watchFetch();
	return listeners.run(onBytes, request);
}

/**
 * Runs `request` with `onResponse` called with the status and headers of every `fetch` response it
 * gets, as they arrive (the provider clients' own retries included). The clients turn a refused
 * request into an error text without its headers; this is where `Retry-After` can still be read.
 * A response `onResponse` returns replaces the one the client gets.
 *
 * @example
 * ```ts
 * let lastStatus = 0;
 * const result = watchResponses(
 * 	(response) => {
 * 		lastStatus = response.status;
 * 		return undefined;
 * 	},
 * 	() => "whatever the request returns",
 * );
 * ```
 */
export function watchResponses<T>(onResponse: ResponseListener, request: () => T): T {
	watchFetch();
	return responseListeners.run(onResponse, request);
}

/**
 * Sees a response; a response it returns replaces it for the client. `failed`, when set, sees a
 * request that got no response (refused, unresolved, an untrusted certificate): the clients keep
 * only "Connection error." of it, not the cause.
 */
export interface ResponseListener {
	(response: Response): Response | undefined | Promise<Response | undefined>;
	failed?: (error: unknown) => void;
}
const responseListeners = new AsyncLocalStorage<ResponseListener>();

/**
 * The request option that asks a stream function making HTTP requests (pi-ai's clients, an
 * extension's `streamSimple`: see {@link streamWatchingResponses}) to run them under
 * {@link watchResponses} with this listener. An option, not a scope entered around every stream
 * call: entering an AsyncLocalStorage slows down every promise of the process from then on (Node
 * 20), and a stream function that makes no request (faux, the bench's) has no response to watch.
 */
export const RESPONSE_LISTENER: unique symbol = Symbol("settle.responseListener");

/** Request options that may carry a {@link RESPONSE_LISTENER}. */
export interface ResponseListenerOption {
	[RESPONSE_LISTENER]?: ResponseListener;
}

/**
 * `stream`, its requests run under {@link watchResponses} when their options carry a
 * {@link RESPONSE_LISTENER}: for stream functions that make HTTP requests (pi-ai's clients, an
 * extension's `streamSimple`).
 *
 * @example
 * ```ts
 * // Requests of `modelRuntime.stream` whose options carry a RESPONSE_LISTENER run under watchResponses.
 * const watched = streamWatchingResponses(modelRuntime.stream);
 * ```
 */
export function streamWatchingResponses(stream: StreamFn): StreamFn {
	return (model, context, options) => {
		const listener = (options as ResponseListenerOption | undefined)?.[RESPONSE_LISTENER];
		return listener ? watchResponses(listener, () => stream(model, context, options)) : stream(model, context, options);
	};
}

function watchFetch(): void {
	const current = globalThis.fetch as typeof fetch & { [WATCHING]?: true };
	if (current[WATCHING]) return;
	const watching: typeof fetch = async (input, init) => {
		const listener = listeners.getStore();
		const onResponse = responseListeners.getStore();
		let received: Response;
		try {
			received = await current(input, init);
		} catch (error) {
			onResponse?.failed?.(error);
			throw error;
		}
		// The bytes as they come off the network: a replacement body may hold back part of a line.
		if (listener) {
			listener();
			watchBody(received, listener);
		}
		return (await onResponse?.(received)) ?? received;
	};
	globalThis.fetch = Object.assign(watching, { [WATCHING]: true as const });
}

/** Calls `listener` at each chunk of an event stream's body, as the client reads it. */
function watchBody(response: Response, listener: () => void): void {
	const body = response.body;
	// Media types are case-insensitive (`Text/Event-Stream`).
	if (!response.ok || !body || !/event-stream/i.test(response.headers.get("content-type") ?? "")) return;
	const watched = body.pipeThrough(
		new TransformStream<Uint8Array, Uint8Array>({
			transform(chunk, controller) {
				listener();
				controller.enqueue(chunk);
			},
		}),
	);
	Object.defineProperty(response, "body", { value: watched, configurable: true });
}
