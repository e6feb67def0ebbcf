// Stands in for the original's dist/cli.js: pi's RpcClient runs
// `node <cliPath> --mode rpc ...`; this runs the relay binary instead, with
// the same stdio, and passes signals and the exit status through.
import { spawn } from "node:child_process";

const child = spawn(process.env.RELAY_BIN, process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
	process.on(sig, () => child.kill(sig));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
