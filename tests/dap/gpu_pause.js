// A pause through DAP while a kernel spins, on a GPU machine: the stop is
// a pause (an interrupt is no device exception), its description the
// hang headline, and the console gets where the kernel's threads are and
// the spin hint, as the screen's C-c and batch's --timeout give them.
//   cd tests/gpu && nvcc -g -G -arch=sm_90 -o /tmp/hang_spin hang_spin.cu
//   node tests/dap/gpu_pause.js /tmp/hang_spin
// (CUDBG_DAP_RECORD=FILE records the session for CI to replay)
'use strict';
const assert = require('assert');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = process.env.CUDBG_BIN || path.join(ROOT, 'build', 'cudbg-tui');
const PROG = process.argv[2];
const T = 120000;

(async () => {
	const dc = new DebugClient(BIN, '--dap', 'cudbg');
	dc.defaultTimeout = T;
	await dc.start();
	await dc.initializeRequest({ adapterID: 'cudbg' });
	const init = dc.waitForEvent('initialized', T);
	const seen = [];
	dc.on('output', e => { if (e.body.category === 'console') seen.push(e.body.output); });
	await dc.launchRequest({ program: PROG, memcheck: 'never',
		sourceDirs: [path.join(ROOT, 'tests', 'gpu')],
		record: process.env.CUDBG_DAP_RECORD || undefined });
	await init;
	await dc.configurationDoneRequest();
	await new Promise(r => setTimeout(r, 6000)); // the kernel spins
	const stopped = dc.waitForEvent('stopped', T);
	await dc.pauseRequest({ threadId: 1 });
	const ev = (await stopped).body;
	assert.strictEqual(ev.reason, 'pause', JSON.stringify(ev));
	assert.ok(/^Hang: kernel consume_tile still running after \d+ s$/.test(ev.description),
		ev.description);
	console.log('PASS gpu_dap/pause_stop: ' + ev.description);
	const text = seen.join('');
	assert.ok(/hang_spin\.cu:22 \(spin-wait\)/.test(text), text);
	assert.ok(/\(hang-spin\)/.test(text), text);
	console.log('PASS gpu_dap/pause_summary');
	const term = dc.waitForEvent('terminated', T);
	await dc.terminateRequest({});
	await term;
	await dc.stop();
	console.log('2 passed, 0 failed');
})().catch(e => {
	console.log('FAIL gpu_dap/pause: ' + (e && e.message ? e.message : e));
	process.exit(1);
});
