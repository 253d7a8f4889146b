/**
 * One error class for everything Settle throws on purpose, with a closed union of codes.
 * Messages say what happened and what to do; `cause` keeps the original error.
 */

/** Every code a {@link SettleError} can carry. Add new codes here (additions only). */
export type SettleErrorCode =
	| "INVALID_ARGUMENT"
	| "NOT_FOUND"
	| "BUSY"
	| "ABORTED"
	| "OPERATION_STALLED"
	| "STALE_CONTEXT"
	| "INVALID_SESSION_FILE"
	| "SESSION_LOCKED"
	| "SESSION_CLOSED"
	/** A prompt sent during a `reload()` that failed: it was not run (`cause`: the reload's error). */
	| "RELOAD_FAILED"
	| "INVALID_SETTINGS"
	| "MISSING_SESSION_CWD"
	| "NO_MODEL"
	| "NO_AUTH"
	| "PROVIDER"
	| "EXTENSION"
	| "TOOL"
	| "IO"
	| "MISSING_DEPENDENCY"
	| "LISTENER"
	/** An RPC server answered `success: false` (settle/rpc): the message is its error text. */
	| "COMMAND_FAILED"
	| "INTERNAL";

/** Marks SettleError's prototype in every copy of this package loaded in one process (`Symbol.for`). */
const SETTLE_ERROR_BRAND = Symbol.for("settle.SettleError");

/**
 * `instanceof SettleError` means: an error made by any copy of this package loaded in the process
 * (a library that installed its own `settle` included). It checks a registry symbol
 * (`Symbol.for("settle.SettleError")`) on the value, not its fields: anything carrying that symbol
 * passes, so code that must rely on `code` and `message` goes through {@link normalizeError}.
 *
 * @example
 * ```ts
 * try {
 *   SessionManager.open("notes.txt");
 * } catch (error) {
 *   if (error instanceof SettleError && error.code === "INVALID_SESSION_FILE") console.error(error.message);
 * }
 * ```
 */
export class SettleError extends Error {
	override readonly name: string = "SettleError";
	readonly code: SettleErrorCode;
	readonly details?: Record<string, unknown>;

	constructor(
		code: SettleErrorCode,
		message: string,
		options?: { cause?: unknown; details?: Record<string, unknown> },
	) {
		super(message, options?.cause === undefined ? undefined : { cause: options.cause });
		this.code = code;
		if (options?.details) this.details = options.details;
	}
}
Object.defineProperty(SettleError.prototype, SETTLE_ERROR_BRAND, { value: true });
// SettleError itself checks the brand, so two copies' errors pass each other's check; subclasses as usual.
Object.defineProperty(SettleError, Symbol.hasInstance, {
	value: function hasInstance(this: unknown, value: unknown): boolean {
		if (this !== SettleError) return Function.prototype[Symbol.hasInstance].call(this, value);
		return typeof value === "object" && value !== null && SETTLE_ERROR_BRAND in value;
	},
});

/**
 * Turns anything thrown into a {@link SettleError} with `code` (default INTERNAL) and the original as
 * `cause`; Settle errors pass through unchanged. A value that carries SettleError's brand but no
 * string `code` and `message` becomes an INTERNAL one saying so. Never throws.
 *
 * @example
 * ```ts
 * try {
 *   JSON.parse("{");
 * } catch (error) {
 *   const settleError = normalizeError(error, "PROVIDER"); // a SettleError, code "PROVIDER" unless it was one already
 *   console.error(settleError.code, settleError.message);
 * }
 * ```
 */
export function normalizeError(error: unknown, code: SettleErrorCode = "INTERNAL"): SettleError {
	if (error instanceof SettleError) {
		// The brand alone is no proof: a value that copied it, or a damaged one, must not pass as one.
		if (typeof error.code === "string" && typeof error.message === "string") return error;
		return new SettleError("INTERNAL", brandedWithoutFields(error), { cause: error });
	}
	if (error instanceof Error) return new SettleError(code, error.message, { cause: error });
	return new SettleError(code, typeof error === "string" ? error : safeStringify(error), { cause: error });
}

/**
 * The message of anything thrown (non-Error values are stringified, JSON when possible). Never throws.
 *
 * @example
 * ```ts
 * errorMessage(new Error("boom")); // "boom"
 * errorMessage({ status: 500 }); // '{"status":500}'
 * ```
 */
export function errorMessage(error: unknown): string {
	if (error instanceof Error) return error.message;
	return typeof error === "string" ? error : safeStringify(error);
}

function brandedWithoutFields(value: SettleError): string {
	const fields = value as { code?: unknown; message?: unknown };
	const missing = [typeof fields.code === "string" ? "" : "code", typeof fields.message === "string" ? "" : "message"]
		.filter(Boolean)
		.join(" or ");
	return (
		`A value marked as a SettleError has no ${missing} (code: ${safeStringify(fields.code)}, ` +
		`message: ${safeStringify(fields.message)}). Whatever threw it copied the settle.SettleError ` +
		"brand without making a SettleError: throw new SettleError(code, message) instead."
	);
}

function safeStringify(value: unknown): string {
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return String(value);
	}
}
