// Used only by the bundled variant of bench/cold-start.ts: stands in for `import … from "xstate"`
// and loads xstate with require, so the bundle does not go through Node's CommonJS-from-ESM path
// (xstate's "import" export is a CommonJS wrapper; lexing it costs ~4 MiB of RSS). The bundler
// reports any name Settle imports that is missing here.
import { createRequire } from "node:module";

const xstate = createRequire(import.meta.url)("xstate");

export const { assign, createActor, emit, enqueueActions, fromPromise, SimulatedClock, setup } = xstate;
