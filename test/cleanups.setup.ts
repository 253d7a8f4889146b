/** Setup file (runs before each test file, also in the shared project): the helpers' cleanups after every test. */
import { afterEach } from "vitest";
import { runCleanups } from "./cleanups.js";

afterEach(runCleanups);
