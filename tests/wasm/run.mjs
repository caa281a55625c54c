// run.mjs - runs a WebAssembly (wasm32-wasi) test program under node's WASI,
// as if it were a native one: its arguments and environment are passed on, its
// stdout and stderr are this process's, and its exit status is this process's.
//
//   node tests/wasm/run.mjs [--argv0 NAME] PROGRAM.wasm [ARGUMENTS...]
//
// --argv0 sets the program's argv[0] (default: PROGRAM.wasm), so that what a
// test prints about itself names the wrapper that runs it. The current
// directory is preopened as "." for programs that open files. A trap (abort(),
// an out-of-bounds access) is reported on stderr with its wasm stack and exits
// 134, as SIGABRT would natively; a program that cannot be loaded exits 1.
// No flag is needed from node 18.17 on (Debian 12's nodejs is 18.20, tried
// too; node 20 and later); older nodes need --experimental-wasi-unstable-preview1.
import { readFile } from 'node:fs/promises';
import process from 'node:process';

// node prints "ExperimentalWarning: WASI is an experimental feature" on stderr
// when node:wasi loads; the tests' stderr is theirs alone, so that warning is
// dropped here (node 18 has no --disable-warning). Other warnings still show.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
    if (warning.name !== 'ExperimentalWarning') process.stderr.write(`${warning.name}: ${warning.message}\n`);
});
const { WASI } = await import('node:wasi');

let args = process.argv.slice(2), argv0;
if (args[0] === '--argv0' && args.length >= 2) { argv0 = args[1]; args = args.slice(2); }
if (args.length < 1) {
    process.stderr.write('usage: run.mjs [--argv0 NAME] PROGRAM.wasm [ARGUMENTS...]\n');
    process.exit(2);
}
const program = args[0];

const wasi = new WASI({
    version: 'preview1',
    args: [argv0 ?? program, ...args.slice(1)],
    env: process.env,
    preopens: { '.': process.cwd() },
    returnOnExit: true, // start() returns the status given to exit() (the default from node 20 on)
});

let status;
try {
    const module = await WebAssembly.compile(await readFile(program));
    const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport });
    status = wasi.start(instance); // main()'s return value, or the status given to exit()
} catch (error) {
    const trapped = error instanceof WebAssembly.RuntimeError;
    process.stderr.write(trapped ? `${program}: trap: ${error.stack}\n` : `${program}: ${error.message}\n`);
    status = trapped ? 134 : 1;
}
process.exitCode = status;
