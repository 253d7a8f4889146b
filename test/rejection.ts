/** Reading the typed error a call is refused with. */
import { expect } from "vitest";
import { SettleError } from "../src/errors.js";

/** The {@link SettleError} `promise` rejects with; the test fails if it resolves or rejects with another error. */
export async function rejection(promise: Promise<unknown>): Promise<SettleError> {
	const error = await promise.then(
		() => undefined,
		(caught: unknown) => caught,
	);
	expect(error).toBeInstanceOf(SettleError);
	return error as SettleError;
}
