// Preloaded with `node --require`: makes @silvia-odwyer/photon-node unresolvable, as when it is not installed.
const Module = require("node:module");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
	if (request.startsWith("@silvia-odwyer/photon-node")) {
		const error = new Error(`Cannot find module '${request}'`);
		error.code = "MODULE_NOT_FOUND";
		throw error;
	}
	return resolve.call(this, request, ...rest);
};
