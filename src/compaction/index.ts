/**
 * Compaction and branch summaries: pure preparation plus default summarizers that call a stream function.
 */
export * from "./branch-summary.js";
export * from "./cut-point.js";
export * from "./entry-messages.js";
export * from "./file-operations.js";
export * from "./prepare.js";
export * from "./prompts.js";
export type { SummaryText } from "./request.js";
export { addUsage } from "./request.js";
export * from "./serialize.js";
export * from "./summarize.js";
export * from "./texts.js";
export * from "./threshold.js";
export * from "./types.js";
