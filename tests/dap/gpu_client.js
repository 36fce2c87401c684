// What the GPU DAP scripts (gpu_smoke.js, gpu_pause.js) share: a client
// of `cudbg-tui --dap` launched on a corpus program under cuda-gdb, with
// the corpus's sources, recorded where CUDBG_DAP_RECORD says (for CI to
// replay); onOutput, when given, sees every output event from the start.
'use strict';
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = process.env.CUDBG_BIN || path.join(ROOT, 'build', 'cudbg-tui');
const T = 120000;

async function launch(prog, onOutput) {
	const dc = new DebugClient(BIN, '--dap', 'cudbg');
	dc.defaultTimeout = T;
	if (onOutput) dc.on('output', onOutput);
	await dc.start();
	await dc.initializeRequest({ adapterID: 'cudbg' });
	const init = dc.waitForEvent('initialized', T);
	await dc.launchRequest({ program: prog, memcheck: 'never',
		sourceDirs: [path.join(ROOT, 'tests', 'gpu')],
		debugger: process.env.CUDBG_DAP_DEBUGGER || undefined,
		record: process.env.CUDBG_DAP_RECORD || undefined });
	await init;
	return dc;
}

module.exports = { T, launch };
