/** Setup file (runs before each test file, also in the shared project): the helpers' cleanups after every test and file. */
import { afterAll, afterEach } from "vitest";
import { runCleanups, runFileCleanups } from "./cleanups.js";

afterEach(runCleanups);
// Registered before the file's own hooks: runs after its afterAll hooks.
afterAll(runFileCleanups);
