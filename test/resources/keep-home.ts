import { afterEach, beforeEach } from "vitest";

/** Restores `process.env.HOME` after each test of the calling suite (pi's loader reads it for the agent folder). */
export function keepHome(): void {
	let savedHome: string | undefined;
	beforeEach(() => {
		savedHome = process.env.HOME;
	});
	afterEach(() => {
		process.env.HOME = savedHome;
	});
}
