// A pause through DAP while a kernel spins, on a GPU machine: the stop is
// a pause (an interrupt is no device exception), its description the
// hang headline, and the console gets where the kernel's threads are and
// the spin hint, as the screen's C-c and batch's --timeout give them.
//   cd tests/gpu && nvcc -g -G -arch=sm_90 -o /tmp/hang_spin hang_spin.cu
//   node tests/dap/gpu_pause.js /tmp/hang_spin
// (CUDBG_DAP_RECORD=FILE records the session for CI to replay;
// CUDBG_DAP_DEBUGGER=gdb runs the same on a CPU program, for trying the
// script itself: `node tests/dap/gpu_pause.js build/progs/spin` fails
// there only on what is a kernel's)
'use strict';
const assert = require('assert');
const { T, launch } = require('./gpu_client');

(async () => {
	const seen = [];
	const dc = await launch(process.argv[2],
		e => { if (e.body.category === 'console') seen.push(e.body.output); });
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
