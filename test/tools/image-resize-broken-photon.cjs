// Preloaded with `node --require`: @silvia-odwyer/photon-node resolves to $SETTLE_TEST_BROKEN_PHOTON, a
// copy that fails when it is loaded (as a package installed without its WebAssembly file would).
const Module = require("node:module");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
	if (request === "@silvia-odwyer/photon-node") return process.env.SETTLE_TEST_BROKEN_PHOTON;
	return resolve.call(this, request, ...rest);
};
