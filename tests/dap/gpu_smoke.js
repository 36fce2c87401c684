// The DAP path on a GPU machine (needs cuda-gdb and compute-sanitizer;
// not run by `make quick`).  What is DAP's own on top of the engine the
// GPU suite checks: the `api` exception filter (set cuda api_failures),
// the fault stop and exceptionInfo live, cudaFocus moving the CUDA focus
// in a live kernel, and cudbgMemcheck.
//   cd tests/gpu && nvcc -g -G -arch=sm_90 -o /tmp/null_deref null_deref.cu
//   node tests/dap/gpu_smoke.js /tmp/null_deref
// (CUDBG_DAP_RECORD=FILE records the session: tests/fixtures/gpu/run27)
'use strict';
const assert = require('assert');
const { T, launch } = require('./gpu_client');

(async () => {
	// CUDBG_DAP_RECORD=FILE: the session's transcript, for CI to replay
	// through DAP
	const dc = await launch(process.argv[2]);
	const f = await dc.setExceptionBreakpointsRequest({ filters: ['gpu', 'api'] });
	assert.ok(f.body.breakpoints.every(b => b.verified), JSON.stringify(f.body));
	const stopped = dc.waitForEvent('stopped', T);
	await dc.configurationDoneRequest();
	const ev = (await stopped).body;
	assert.strictEqual(ev.reason, 'exception');
	assert.ok(/Warp Illegal Address in row_sums at null_deref\.cu:14/.test(ev.description), ev.description);
	console.log('PASS gpu_dap/fault_stop: ' + ev.description);
	const info = await dc.exceptionInfoRequest({ threadId: ev.threadId });
	assert.strictEqual(info.body.details.cudbg.class, 'Warp Illegal Address');
	console.log('PASS gpu_dap/exception_info: ' + info.body.description);
	const foc = await dc.customRequest('cudaFocus', { block: [0, 0, 0], thread: [3, 0, 0] });
	assert.strictEqual(foc.body.name, 'block (0,0,0) thread (3,0,0)');
	const st = await dc.stackTraceRequest({ threadId: foc.body.threadId });
	const r = await dc.evaluateRequest({ expression: 'r', frameId: st.body.stackFrames[0].id, context: 'watch' });
	assert.strictEqual(r.body.result, '3');
	console.log('PASS gpu_dap/cuda_focus: r=' + r.body.result);
	const mc = await dc.customRequest('cudbgMemcheck', {});
	assert.ok(/memcheck|Invalid/i.test(mc.body.report), mc.body.report.slice(0, 300));
	console.log('PASS gpu_dap/memcheck: core=' + (mc.body.coreFile || '-'));
	await dc.stop();
})().catch(e => { console.log('FAIL gpu_dap: ' + (e && e.stack || e)); process.exit(1); });
