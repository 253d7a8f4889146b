/**
 * Settle: coding-agent sessions run through explicit, inspectable XState v5 state machines.
 * @packageDocumentation
 */
export type * from "./agent/types.js";
export type * from "./llm/types.js";
export { emptyUsage } from "./llm/types.js";
export type * from "./session/messages.js";
