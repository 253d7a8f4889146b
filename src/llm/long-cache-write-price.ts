/**
 * Anthropic bills a prompt-cache write with the 1-hour lifetime at twice the input price; the
 * catalog's `cacheWrite` is the 5-minute price (1.25 times). pi-ai 0.73.1 asks for 1 hour on every
 * breakpoint when the retention resolves to `long` (`PI_CACHE_RETENTION=long`) but prices each write
 * at `cacheWrite`, so a long-retention session's cost was about 0.6 of its writes' bill (pi#5603).
 */
import type { Model, StreamOptions } from "./types.js";

/**
 * `model` with the 1-hour cache-write price when pi-ai will send this request's breakpoints with
 * `ttl: "1h"` (Anthropic Messages, retention `long`, the model's `compat` not refusing it), so the
 * answer is priced as billed; otherwise `model` itself.
 *
 * @example
 * ```ts
 * declare const sonnet: Model; // input $3, cacheWrite $3.75 per million
 * withLongCacheWritePrice(sonnet, { cacheRetention: "long" }).cost.cacheWrite; // 6 (input 3 × 2)
 * ```
 */
export function withLongCacheWritePrice(model: Model, options: StreamOptions | undefined): Model {
	if (model.api !== "anthropic-messages") return model;
	// pi-ai's resolution: the request's option, else the environment.
	const retention = options?.cacheRetention ?? (process.env.PI_CACHE_RETENTION === "long" ? "long" : "short");
	if (retention !== "long" || model.compat?.supportsLongCacheRetention === false) return model;
	const cacheWrite = model.cost.input * 2;
	return cacheWrite === model.cost.cacheWrite ? model : { ...model, cost: { ...model.cost, cacheWrite } };
}
