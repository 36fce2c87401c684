// Drives `cudbg-tui --dap` with a real DAP client: the DebugClient of
// @vscode/debugadapter-testsupport (what VS Code's own adapters test
// with).  Against real gdb on tests/progs/dap_prog.c: breakpoints (line,
// conditional, function), stepping, variables with paging, evaluate
// (watch, repl pass-through), exit.  Against cuda-gdb recordings: the
// replay of seed_py (a stopped event with reason exception, exceptionInfo
// naming the pytorch-class-index hint) and a coredump recording.
// Prints one PASS/FAIL line per case (tests/sh/dap.sh runs it).
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = process.env.CUDBG_BIN || path.join(ROOT, 'build', 'cudbg-tui');
const BUILD = process.env.CUDBG_BUILD || path.join(ROOT, 'build');
const FIX = process.env.CUDBG_FIXTURES || path.join(ROOT, 'tests', 'shared', 'fixtures');
const PROG = path.join(BUILD, 'progs', 'dap_prog');
const SRC = path.join(ROOT, 'tests', 'progs', 'dap_prog.c');
// under valgrind (make valgrind) the adapter is many times slower
const TIMEOUT = process.env.CUDBG_UNDER_VALGRIND === '1' ? 180000 : 20000;

function markLine(mark) {
	const lines = fs.readFileSync(SRC, 'utf8').split('\n');
	const i = lines.findIndex(l => l.includes(mark));
	if (i < 0) throw new Error('no ' + mark + ' in ' + SRC);
	return i + 1;
}

function client() {
	// DebugClient spawns RUNTIME EXECUTABLE: the binary and its option
	// CUDBG_DAP_STDERR=1 shows the adapter's stderr (a crash report)
	const dc = new DebugClient(BIN, '--dap', 'cudbg', undefined,
		process.env.CUDBG_DAP_STDERR === '1');
	dc.defaultTimeout = TIMEOUT;
	return dc;
}

async function start(dc, launchArgs, configure) {
	await dc.start();
	const init = await dc.initializeRequest({ adapterID: 'cudbg', linesStartAt1: true,
		columnsStartAt1: true, pathFormat: 'path' });
	assert.ok(init.body.supportsConfigurationDoneRequest, 'capabilities');
	const initialized = dc.waitForEvent('initialized', TIMEOUT);
	await dc.launchRequest(launchArgs);
	await initialized;
	if (configure) await configure();
	const stopped = dc.waitForEvent('stopped', TIMEOUT);
	await dc.configurationDoneRequest();
	return stopped;
}

function gdbArgs(extra) {
	return Object.assign({ program: PROG, args: ['x'], debugger: 'gdb',
		memcheck: 'never', cwd: BUILD }, extra || {});
}

async function localsOf(dc, frameId) {
	const scopes = await dc.scopesRequest({ frameId });
	const locals = scopes.body.scopes.find(s => s.name === 'Locals');
	const args = scopes.body.scopes.find(s => s.name === 'Arguments');
	const l = await dc.variablesRequest({ variablesReference: locals.variablesReference });
	const a = await dc.variablesRequest({ variablesReference: args.variablesReference });
	return { locals: l.body.variables, args: a.body.variables };
}

const cases = {
	async gdb_breakpoint_step_variables(dc) {
		const body = markLine('MARK_TWICE_BODY');
		const stopped = await start(dc, gdbArgs(), async () => {
			const r = await dc.setBreakpointsRequest({ source: { path: SRC },
				breakpoints: [{ line: body }] });
			assert.strictEqual(r.body.breakpoints.length, 1);
			assert.ok(r.body.breakpoints[0].verified, 'breakpoint verified');
			assert.strictEqual(r.body.breakpoints[0].line, body);
		});
		assert.strictEqual(stopped.body.reason, 'breakpoint');
		const tid = stopped.body.threadId;
		const th = await dc.threadsRequest();
		assert.ok(th.body.threads.some(t => t.id === tid), 'stopped thread listed');
		let st = await dc.stackTraceRequest({ threadId: tid });
		assert.strictEqual(st.body.stackFrames[0].name, 'twice');
		assert.strictEqual(st.body.stackFrames[0].line, body);
		assert.strictEqual(st.body.stackFrames[1].name, 'main');
		const inner = await localsOf(dc, st.body.stackFrames[0].id);
		assert.deepStrictEqual(inner.args.map(v => [v.name, v.value]), [['v', '4']]);
		// main's locals: a struct with members, an array paged by start/count
		const outer = await localsOf(dc, st.body.stackFrames[1].id);
		const p = outer.locals.find(v => v.name === 'p');
		assert.ok(p.variablesReference > 0, 'struct expandable');
		const members = await dc.variablesRequest({ variablesReference: p.variablesReference });
		assert.deepStrictEqual(members.body.variables.map(v => [v.name, v.value]),
			[['left', '4'], ['right', '2.5']]);
		const sq = outer.locals.find(v => v.name === 'squares');
		assert.strictEqual(sq.indexedVariables, 256);
		const page = await dc.variablesRequest({ variablesReference: sq.variablesReference,
			filter: 'indexed', start: 250, count: 6 });
		assert.deepStrictEqual(page.body.variables.map(v => [v.name, v.value]),
			[['[250]', '62500'], ['[251]', '63001'], ['[252]', '63504'],
			 ['[253]', '64009'], ['[254]', '64516'], ['[255]', '65025']]);
		// evaluate: watch in a frame, hover, repl pass-through to the console
		// main's p is not visible in twice's frame: an error response
		const w = await dc.evaluateRequest({ expression: 'p.left',
			frameId: st.body.stackFrames[0].id, context: 'watch' }).then(
			() => 'ok', e => e.message);
		assert.ok(/No symbol "p"/.test(w), w);
		const w2 = await dc.evaluateRequest({ expression: 'p.left * 10',
			frameId: st.body.stackFrames[1].id, context: 'watch' });
		assert.strictEqual(w2.body.result, '40');
		const h = await dc.evaluateRequest({ expression: 'v', frameId:
			st.body.stackFrames[0].id, context: 'hover' });
		assert.strictEqual(h.body.result, '4');
		const repl = await dc.evaluateRequest({ expression: 'info line twice', context: 'repl' });
		assert.ok(/Line \d+ of .*dap_prog\.c/.test(repl.body.result), repl.body.result);
		const mi = await dc.evaluateRequest({ expression: '-data-evaluate-expression 6*7', context: 'repl' });
		assert.ok(/42/.test(mi.body.result), mi.body.result);
		// disassemble around the pc; read memory of p (left = 4)
		const ip = st.body.stackFrames[0].instructionPointerReference;
		const dis = await dc.disassembleRequest({ memoryReference: ip,
			instructionOffset: -2, instructionCount: 5 });
		assert.strictEqual(dis.body.instructions.length, 5);
		assert.strictEqual(BigInt(dis.body.instructions[2].address), BigInt(ip));
		const addr = await dc.evaluateRequest({ expression: '&p',
			frameId: st.body.stackFrames[1].id, context: 'watch' });
		const at = /0x[0-9a-f]+/.exec(addr.body.result)[0];
		const mem = await dc.send('readMemory', { memoryReference: at, count: 4 });
		assert.strictEqual(Buffer.from(mem.body.data, 'base64').readInt32LE(0), 4);
		// step out to main's call line, then next
		let s2 = dc.waitForEvent('stopped', TIMEOUT);
		await dc.stepOutRequest({ threadId: tid });
		assert.strictEqual((await s2).body.reason, 'step');
		st = await dc.stackTraceRequest({ threadId: tid });
		assert.strictEqual(st.body.stackFrames[0].name, 'main');
		assert.strictEqual(st.body.stackFrames[0].line, markLine('MARK_CALL'));
		s2 = dc.waitForEvent('stopped', TIMEOUT);
		await dc.nextRequest({ threadId: tid });
		assert.strictEqual((await s2).body.reason, 'step');
		st = await dc.stackTraceRequest({ threadId: tid });
		assert.strictEqual(st.body.stackFrames[0].line, markLine('MARK_CALL') + 1);
		// continue to the end: the program's output, exited 3, terminated
		const out = dc.assertOutput('stdout', 'dap_prog: sum=', TIMEOUT);
		const exited = dc.waitForEvent('exited', TIMEOUT);
		const term = dc.waitForEvent('terminated', TIMEOUT);
		await dc.continueRequest({ threadId: tid });
		await out;
		assert.strictEqual((await exited).body.exitCode, 3);
		await term;
	},

	async gdb_conditional_function_step_in(dc) {
		// a condition that never holds does not stop; a function
		// breakpoint does; stepIn from main enters twice
		const stopped = await start(dc, gdbArgs({ stopOnEntry: true }), async () => {
			const r = await dc.setBreakpointsRequest({ source: { path: SRC },
				breakpoints: [{ line: markLine('MARK_TWICE_BODY'), condition: 'v == 99' }] });
			assert.ok(r.body.breakpoints[0].verified);
			const f = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'nonesuch_fn' }] });
			assert.strictEqual(f.body.breakpoints[0].verified, false);
			assert.ok(f.body.breakpoints[0].message.length > 0);
		});
		assert.strictEqual(stopped.body.reason, 'entry');
		const tid = stopped.body.threadId;
		let st = await dc.stackTraceRequest({ threadId: tid });
		assert.strictEqual(st.body.stackFrames[0].name, 'main');
		await dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [
			{ line: markLine('MARK_CALL') }] });
		let s = dc.waitForEvent('stopped', TIMEOUT);
		await dc.continueRequest({ threadId: tid });
		assert.strictEqual((await s).body.reason, 'breakpoint');
		s = dc.waitForEvent('stopped', TIMEOUT);
		await dc.stepInRequest({ threadId: tid });
		await s;
		st = await dc.stackTraceRequest({ threadId: tid });
		assert.strictEqual(st.body.stackFrames[0].name, 'twice');
		// the conditional breakpoint (v == 99) never stops: run to exit
		const exited = dc.waitForEvent('exited', TIMEOUT);
		await dc.continueRequest({ threadId: tid });
		assert.strictEqual((await exited).body.exitCode, 3);
	},

	async replay_seed_py_exception(dc) {
		const diag = dc.assertOutput('console', 'cudbg-tui diagnosis: FAULT (assert)', TIMEOUT);
		const stopped = await start(dc, { replay: path.join(FIX, 'seed_py.mi.log') });
		assert.strictEqual(stopped.body.reason, 'exception');
		assert.ok(/Warp Assert in nll_loss_forward_reduce_cuda_kernel_2d/.test(
			stopped.body.description), stopped.body.description);
		await diag;
		const tid = stopped.body.threadId;
		const th = await dc.threadsRequest();
		const dev = th.body.threads.find(t => t.id === tid);
		assert.strictEqual(dev.name, 'block (0,0,0) thread (23,0,0)');
		const info = await dc.exceptionInfoRequest({ threadId: tid });
		assert.strictEqual(info.body.exceptionId, 'CUDA_EXCEPTION_12');
		assert.strictEqual(info.body.breakMode, 'always');
		const c = info.body.details.cudbg;
		assert.strictEqual(c.kind, 'assert');
		assert.strictEqual(c.kernel, 'nll_loss_forward_reduce_cuda_kernel_2d');
		assert.deepStrictEqual(c.thread, [23, 0, 0]);
		assert.ok(c.hints.some(h => h.id === 'pytorch-class-index'),
			'hints: ' + c.hints.map(h => h.id).join(','));
		assert.ok(/Loss\.cu:245/.test(info.body.details.stackTrace));
		const st = await dc.stackTraceRequest({ threadId: tid });
		assert.ok(/nll_loss_forward_reduce_cuda_kernel_2d/.test(st.body.stackFrames[0].name));
		// a recording cannot take new breakpoints: said, not faked
		const b = await dc.setBreakpointsRequest({ source: { path: '/x.cu' }, breakpoints: [{ line: 3 }] });
		assert.strictEqual(b.body.breakpoints[0].verified, false);
	},

	// a host assert() stops in libc (SIGABRT): libc's frames, whose
	// sources ("./nptl/pthread_kill.c") are not here, are greyed
	// (presentationHint subtle, source deemphasize) so a client focuses
	// the program's own frame, check_rows with n = 21, as the screen
	// selects it
	async gdb_host_assert_user_frame(dc) {
		const stopped = await start(dc, gdbArgs({
			program: path.join(BUILD, 'progs', 'host_crash'), args: ['assert'] }));
		assert.strictEqual(stopped.body.reason, 'exception');
		// the description names the user's line, as the report does
		assert.ok(/host_crash\.c:\d+/.test(stopped.body.description || ''),
			'description: ' + stopped.body.description);
		const st = await dc.stackTraceRequest({ threadId: stopped.body.threadId });
		const frames = st.body.stackFrames;
		const own = frames.findIndex(f => f.source && f.source.presentationHint !== 'deemphasize');
		assert.ok(own > 0, 'no library frame above the user\'s: ' +
			JSON.stringify(frames.map(f => [f.name, f.presentationHint])));
		assert.ok(/check_rows/.test(frames[own].name), 'first own frame: ' + frames[own].name);
		for (const f of frames.slice(0, own))
			assert.ok(!f.source || f.presentationHint === 'subtle',
				'library frame not greyed: ' + JSON.stringify(f));
		const v = await localsOf(dc, frames[own].id);
		const n = v.args.find(x => x.name === 'n');
		assert.ok(n && n.value === '21', 'n: ' + JSON.stringify(v.args));
	},

	// issue 28 item 3: at a device assert the kernel's frame (above
	// __assert_fail) shows register-held values the inner frames reused
	// (cuda-gdb 13: i = 0 where the thread had 7321): never a plain value
	// in an editor; the kernel's parameters (@parameter) are right.
	async replay_device_assert_stale_values(dc) {
		const rec = path.join(ROOT, 'tests', 'fixtures', 'gpu', 'device_assert.mi.log');
		const stopped = await start(dc, { replay: rec });
		assert.strictEqual(stopped.body.reason, 'exception');
		const st = await dc.stackTraceRequest({ threadId: stopped.body.threadId });
		const k = st.body.stackFrames.find(f => /histogram/.test(f.name));
		assert.ok(k, 'no kernel frame: ' + st.body.stackFrames.map(f => f.name).join(','));
		const v = await localsOf(dc, k.id);
		const i = v.locals.find(x => x.name === 'i');
		assert.ok(i, 'no i: ' + JSON.stringify(v.locals));
		assert.ok(/may be stale/.test(i.value) && i.variablesReference === 0,
			'i shown as a value: ' + JSON.stringify(i));
		const n = v.args.find(x => x.name === 'n');
		assert.strictEqual(n.value, '1024');
	},

	// a pause while a kernel spins (the H100's hang_spin recording, whose
	// interrupt the pause sends): a pause, not an exception, with the
	// kernel's threads per line and the spin hint
	async replay_pause_in_kernel(dc) {
		const rec = path.join(ROOT, 'tests', 'fixtures', 'gpu', 'hang_spin.mi.log');
		await dc.start();
		await dc.initializeRequest({ adapterID: 'cudbg' });
		const initialized = dc.waitForEvent('initialized', TIMEOUT);
		const seen = [];
		dc.on('output', e => { if (e.body.category === 'console') seen.push(e.body.output); });
		await dc.launchRequest({ replay: rec, sourceDirs: [path.join(ROOT, 'tests', 'gpu')] });
		await initialized;
		await dc.configurationDoneRequest();
		const stopped = dc.waitForEvent('stopped', TIMEOUT);
		let paused = 'no';
		for (let i = 0; i < 50 && paused !== 'ok'; i++) { // until it runs
			paused = await dc.pauseRequest({ threadId: 1 }).then(() => 'ok', e => e.message);
			if (paused !== 'ok') await new Promise(r => setTimeout(r, 100));
		}
		assert.strictEqual(paused, 'ok');
		const ev = (await stopped).body;
		assert.strictEqual(ev.reason, 'pause', JSON.stringify(ev));
		assert.ok(/^Hang: kernel consume_tile still running after \d+ s \(recorded\)$/.test(ev.description),
			ev.description);
		const text = seen.join('');
		assert.ok(/block \(0,0,0\): .*hang_spin\.cu:22 \(spin-wait\)/.test(text), text);
		assert.ok(/\(hang-spin\)/.test(text), text);
	},

	// issue 31 item 1: after the Python stack's calls into the program
	// cuda-gdb has resumed the GPU and the kernel is gone (the recording's
	// "Invalid coordinates requested"); the CUDA thread still answers the
	// device stack of the stop, not the host's libcuda frames
	async replay_python_device_stop_keeps_device_stack(dc) {
		const rec = path.join(ROOT, 'tests', 'fixtures', 'gpu', 'torch_embedding.mi.log');
		const stopped = await start(dc, { replay: rec });
		assert.strictEqual(stopped.body.threadId, 1000000);
		const st = await dc.stackTraceRequest({ threadId: 1000000 });
		const names = st.body.stackFrames.map(f => f.name);
		assert.ok(/vectorized_gather_kernel/.test(names[0]), names.join(' | '));
		assert.ok(!names.some(n => /libcuda/.test(n)), names.join(' | '));
		// the launching host thread: its Python frames first (the
		// script opens at the line), one label, then the native frames
		const host = await dc.stackTraceRequest({ threadId: 1 });
		const hf = host.body.stackFrames;
		const user = hf.find(f => f.source && /torch_embedding\.py$/.test(f.source.path));
		assert.ok(user, hf.map(f => f.name).join(' | '));
		assert.strictEqual(user.name, 'embed');
		assert.strictEqual(user.line, 14);
		assert.ok(!user.presentationHint, JSON.stringify(user));
		assert.ok(hf.indexOf(user) < 5, 'Python frames come first');
		const label = hf.findIndex(f => f.presentationHint === 'label');
		assert.ok(label > hf.indexOf(user), 'label after the Python frames');
		assert.ok(/libcuda/.test(hf[label + 1].name), hf[label + 1].name);
		assert.strictEqual(host.body.totalFrames, hf.length);
		// a Python frame has no gdb variables; paging spans the parts
		const sc = await dc.scopesRequest({ frameId: user.id });
		assert.strictEqual(sc.body.scopes.length, 0);
		const page = await dc.stackTraceRequest({ threadId: 1, startFrame: label, levels: 2 });
		assert.strictEqual(page.body.stackFrames[0].presentationHint, 'label');
		assert.strictEqual(page.body.stackFrames.length, 2);
	},

	// a Python process's coredump (gdb 13 on a gcore core of
	// tests/progs/py_deep.py's thread mode, CPython 3.12): the stopped
	// thread's stack begins with the script's frames read from memory
	async core_python_stack_from_memory(dc) {
		const rec = path.join(ROOT, 'tests', 'fixtures', 'pymem', 'py312-thread.core.mi.log');
		const stopped = await start(dc, { replay: rec });
		const st = await dc.stackTraceRequest({ threadId: stopped.body.threadId });
		const f = st.body.stackFrames;
		const py = f.filter(x => x.source && /py_deep\.py$/.test(x.source.path));
		assert.deepStrictEqual(py.map(x => x.name + ':' + x.line),
			['crash:14', 'crash:15', 'crash:15', 'worker:19'], f.map(x => x.name).join(' | '));
		assert.ok(f.some(x => x.presentationHint === 'label'));
	},

	// one JSON for the hints (issue 30 item 2): DAP's exceptionInfo
	// carries the hints exactly as --json writes them (keys, priority,
	// step kinds)
	async replay_hints_same_json_as_batch(dc) {
		const fix = path.join(FIX, 'seed_py.mi.log');
		const stopped = await start(dc, { replay: fix });
		const info = await dc.exceptionInfoRequest({ threadId: stopped.body.threadId });
		// (exit 1: a fault)
		const out = require('child_process').spawnSync(BIN,
			['--json', '--replay', fix], { encoding: 'utf8' }).stdout;
		const batch = JSON.parse(out).diagnosis.hints;
		assert.deepStrictEqual(info.body.details.cudbg.hints, batch);
		assert.ok(batch[0].priority > 0 && batch[0].steps.length > 0);
	},

	// DAP sessions recorded on the GPU (run 28, H100, through
	// tests/dap/record_session.py) replay through DAP with what the live
	// session answered (issue 31 item 2)
	async gpu_dap_session_cuda_c_illegal_address(dc) {
		const rec = path.join(ROOT, 'tests', 'fixtures', 'gpu', 'dap_null_deref.mi.log');
		const stopped = await start(dc, { replay: rec }, async () => {
			await dc.setExceptionBreakpointsRequest({ filters: ['gpu'] });
		});
		assert.strictEqual(stopped.body.reason, 'exception');
		assert.strictEqual(stopped.body.threadId, 1000000);
		assert.ok(/Warp Illegal Address in row_sums at null_deref\.cu:14/.test(
			stopped.body.description), stopped.body.description);
		const st = await dc.stackTraceRequest({ threadId: 1000000 });
		assert.strictEqual(st.body.stackFrames[0].name, 'row_sums');
		assert.strictEqual(st.body.stackFrames[0].line, 14);
		const info = await dc.exceptionInfoRequest({ threadId: 1000000 });
		assert.strictEqual(info.body.exceptionId, 'CUDA_EXCEPTION_14');
		assert.ok(info.body.details.cudbg.hints.some(h => h.id === 'exc-warp-illegal-address'));
	},

	async gpu_dap_session_python_device_assert(dc) {
		const rec = path.join(ROOT, 'tests', 'fixtures', 'gpu', 'dap_torch_label.mi.log');
		const stopped = await start(dc, { replay: rec }, async () => {
			await dc.setExceptionBreakpointsRequest({ filters: ['gpu'] });
		});
		assert.strictEqual(stopped.body.reason, 'exception');
		assert.ok(/Warp Assert in nll_loss_forward_reduce_cuda_kernel_2d/.test(
			stopped.body.description), stopped.body.description);
		const dev = await dc.stackTraceRequest({ threadId: 1000000 });
		assert.ok(/nll_loss_forward_reduce_cuda_kernel_2d/.test(dev.body.stackFrames[0].name));
		// the launching host thread: the script's frames first
		const host = await dc.stackTraceRequest({ threadId: 1 });
		const hf = host.body.stackFrames;
		const user = hf.find(f => f.source && /torch_label\.py$/.test(f.source.path));
		assert.ok(user, hf.map(f => f.name).join(' | '));
		assert.strictEqual(user.name, 'train_step');
		assert.strictEqual(user.line, 12);
		assert.ok(hf.findIndex(f => f.presentationHint === 'label') > hf.indexOf(user));
		const info = await dc.exceptionInfoRequest({ threadId: stopped.body.threadId });
		assert.strictEqual(info.body.details.cudbg.hints[0].id, 'pytorch-class-index');
	},

	async replay_seed_py_python_lines(dc) {
		// with the sanitizer report of the same run: the Python lines
		// that launched the kernel reach the stop and exceptionInfo
		const fix = path.join(FIX, 'seed_py.mi.log');
		const stopped = await start(dc, { replay: fix,
			sanitizerReport: path.join(FIX, 'seed_py.sanitizer.xml') });
		assert.ok(/launched from \/src\/examples\/seed_repro\.py:12/.test(
			stopped.body.description), stopped.body.description);
		const info = await dc.exceptionInfoRequest({ threadId: stopped.body.threadId });
		const py = info.body.details.cudbg.python;
		assert.strictEqual(py.line, 12);
		assert.ok(/seed_repro\.py$/.test(py.file), py.file);
		assert.ok(/seed_repro\.py:9 in test_case/.test(info.body.details.stackTrace),
			info.body.details.stackTrace);
	},

	async core_recording_null_deref(dc) {
		const core = path.join(ROOT, 'tests', 'fixtures', 'gpu', 'null_deref.core.mi.log');
		const stopped = await start(dc, { replay: core });
		assert.strictEqual(stopped.body.reason, 'exception');
		assert.ok(/Warp Illegal Address in row_sums at null_deref\.cu:14/.test(
			stopped.body.description), stopped.body.description);
		const info = await dc.exceptionInfoRequest({ threadId: stopped.body.threadId });
		assert.strictEqual(info.body.details.cudbg.class, 'Warp Illegal Address');
		assert.strictEqual(info.body.details.cudbg.line, 14);
		const st = await dc.stackTraceRequest({ threadId: stopped.body.threadId });
		assert.strictEqual(st.body.stackFrames[0].line, 14);
		// nothing runs in a coredump
		const r = await dc.continueRequest({ threadId: stopped.body.threadId }).then(
			() => 'ok', e => e.message);
		assert.ok(/coredump/.test(r), r);
	},

	async replay_focus_and_host_stack(dc) {
		// filters.mi.log (cuda-gdb 13, big_grid): the focus moved with
		// cudaFocus, and the launching host thread's stack read on request
		const stopped = await start(dc, { replay: path.join(FIX, 'filters.mi.log') });
		assert.strictEqual(stopped.body.reason, 'exception');
		assert.ok(/Warp Assert in busy at big_grid\.cu:16/.test(stopped.body.description),
			stopped.body.description);
		const moved = dc.waitForEvent('stopped', TIMEOUT);
		const f = await dc.customRequest('cudaFocus', { block: [7, 0, 0], thread: { x: 3, y: 0, z: 0 } });
		assert.strictEqual(f.body.name, 'block (7,0,0) thread (3,0,0)');
		const ev = (await moved).body;
		assert.strictEqual(ev.reason, 'focus');
		assert.strictEqual(ev.threadId, 1000000);
		const bad = await dc.customRequest('cudaFocus', { thread: 'x' }).then(() => 'ok', e => e.message);
		assert.ok(/cudaFocus needs thread/.test(bad), bad);
		// the host side of the device stop: the driver's frames folded
		// into one label (issue 31 item 1), then the program's main
		const host = await dc.stackTraceRequest({ threadId: 1 });
		const names = host.body.stackFrames.map(x => x.name);
		assert.ok(/^[0-9]+ frames in libcuda\.so\.1/.test(names[0]), names.join(','));
		assert.strictEqual(host.body.stackFrames[0].presentationHint, 'label');
		const main = host.body.stackFrames.find(x => x.name === 'main');
		assert.ok(main && /big_grid\.cu$/.test(main.source.path), names.join(','));
		assert.ok(names.indexOf('main') <= 4, 'main near the top: ' + names.join(','));
		// the threads answer stays small: the focus and the host thread
		const th = await dc.threadsRequest();
		assert.ok(th.body.threads.length <= 8, JSON.stringify(th.body));
	},

	async replay_to_fault(dc) {
		// the recording of a replay to fault (cuda-gdb 13, small_oob):
		// the sanitizer finding names thread (99,0,0); the custom request
		// reruns it and stops that thread before its access
		await dc.start();
		await dc.initializeRequest({ adapterID: 'cudbg' });
		const initialized = dc.waitForEvent('initialized', TIMEOUT);
		await dc.launchRequest({ replay: path.join(FIX, 'replay_to_fault.mi.log'),
			sanitizerReport: path.join(FIX, 'small_oob.sanitizer.xml') });
		await initialized;
		const stopped = dc.waitForEvent('stopped', TIMEOUT);
		const r = await dc.customRequest('cudbgReplayToFault', {});
		assert.deepStrictEqual(r.body.thread, [99, 0, 0]);
		assert.strictEqual(r.body.file, 'small_oob.cu');
		const ev = (await stopped).body;
		assert.strictEqual(ev.threadId, 1000000);
		assert.ok(/thread \(99,0,0\) of block \(0,0,0\) just before small_oob\.cu:7/.test(
			ev.description), ev.description);
		const th = await dc.threadsRequest();
		assert.ok(th.body.threads.some(t => t.name === 'block (0,0,0) thread (99,0,0)'));
		// without a finding or a precise stop there is no thread to aim at
		const dc2 = client();
		await dc2.start();
		await dc2.initializeRequest({ adapterID: 'cudbg' });
		const init2 = dc2.waitForEvent('initialized', TIMEOUT);
		await dc2.launchRequest({ program: PROG, debugger: 'gdb', memcheck: 'never' });
		await init2;
		const e = await dc2.customRequest('cudbgReplayToFault', {}).then(() => 'ok', x => x.message);
		await dc2.stop();
		assert.ok(/run cudbgMemcheck first/.test(e), e);
	},

	async gdb_core_file(dc) {
		// a coreFile configuration: gdb writes a core of model_segv at
		// its SIGSEGV (gcore), the adapter opens it: stopped, the stack
		// in poke(), nothing resumes
		const prog = path.join(BUILD, 'progs', 'model_segv');
		const core = path.join(require('os').tmpdir(), 'cudbg-dap-' + process.pid + '.core');
		const g = require('child_process').spawnSync('gdb', ['-q', '-nx', '-batch',
			'-ex', 'run', '-ex', 'gcore ' + core, prog],
			// (stdin closed: with an open pipe there, a gdb started
			// from a background job never got past `run`)
			{ timeout: 3 * TIMEOUT, stdio: ['ignore', 'pipe', 'pipe'] });
		try {
			// (on a time-out, what the machine's gdb and program were doing)
			const ps = g.error ? require('child_process').spawnSync('sh', ['-c',
				'ps -eo pid,ppid,stat,wchan:20,args | grep -E "gdb|model_segv" | grep -v grep'],
				{ timeout: 5000 }).stdout : '';
			assert.ok(fs.existsSync(core), 'gcore wrote no core: ' +
				(g.error ? g.error.message + '; ' : '') + String(g.stderr) +
				' | ' + String(g.stdout).slice(-300) + ' | ' + String(ps));
			const stopped = await start(dc, { coreFile: core, program: prog, debugger: 'gdb' });
			const ev = stopped.body;
			assert.ok(/poke/.test(ev.description), ev.description);
			const st = await dc.stackTraceRequest({ threadId: ev.threadId });
			assert.strictEqual(st.body.stackFrames[0].name, 'poke');
			assert.strictEqual(st.body.stackFrames[1].name, 'main');
			const r = await dc.nextRequest({ threadId: ev.threadId }).then(() => 'ok', e => e.message);
			assert.ok(/coredump/.test(r), r);
		} finally {
			fs.rmSync(core, { force: true });
		}
	},

	async memcheck_request_without_sanitizer(dc) {
		// cudbgMemcheck after launch: the launch's own settings (here a
		// sanitizer that does not exist) still hold; the pass's diagnosis
		// says so with its hint.  (The options once pointed into the
		// freed launch request: the pass ran something else.)
		await dc.start();
		await dc.initializeRequest({ adapterID: 'cudbg' });
		const initialized = dc.waitForEvent('initialized', TIMEOUT);
		await dc.launchRequest({ program: PROG, debugger: 'gdb',
			sanitizer: '/nonexistent/cudbg-test/compute-sanitizer' });
		await initialized;
		const r = await dc.customRequest('cudbgMemcheck', {});
		assert.ok(/compute-sanitizer was not found/.test(r.body.report), r.body.report);
		assert.ok(/env-sanitizer-missing/.test(r.body.report), r.body.report);
		const bad = client();
		await bad.start();
		await bad.initializeRequest({ adapterID: 'cudbg' });
		const i2 = bad.waitForEvent('initialized', TIMEOUT);
		await bad.launchRequest({ replay: path.join(FIX, 'seed_py.mi.log') });
		await i2;
		const e = await bad.customRequest('cudbgMemcheck', {}).then(() => 'ok', x => x.message);
		await bad.stop();
		assert.ok(/needs a launch configuration/.test(e), e);
	},

	async memcheck_request_pass_without_report(dc) {
		// issue 33 item 3: a pass that wrote no report says so, with
		// its hint, never the look of a clean pass (the stand-in
		// sanitizer writes none: FAKE_SAN_NOXML, inherited)
		process.env.FAKE_SAN_NOXML = '1';
		try {
			await dc.start();
		} finally {
			delete process.env.FAKE_SAN_NOXML;
		}
		await dc.initializeRequest({ adapterID: 'cudbg' });
		const initialized = dc.waitForEvent('initialized', TIMEOUT);
		await dc.launchRequest({ program: PROG, debugger: 'gdb',
			sanitizer: path.join(ROOT, 'tests', 'data', 'fake-compute-sanitizer') });
		await initialized;
		const r = await dc.customRequest('cudbgMemcheck', {});
		assert.ok(/san-failed/.test(r.body.report), r.body.report);
		assert.ok(/compute-sanitizer wrote no report/.test(r.body.report), r.body.report);
		assert.ok(!/san-clean|found no error/.test(r.body.report), r.body.report);
	},

	async gdb_pause_terminate(dc) {
		// a program that spins: pause stops it, terminate ends it
		await dc.start();
		await dc.initializeRequest({ adapterID: 'cudbg' });
		const initialized = dc.waitForEvent('initialized', TIMEOUT);
		const out = dc.assertOutput('stdout', 'spin waiting', TIMEOUT);
		await dc.launchRequest({ program: path.join(BUILD, 'progs', 'spin'),
			debugger: 'gdb', memcheck: 'never' });
		await initialized;
		await dc.configurationDoneRequest();
		await out;
		const stopped = dc.waitForEvent('stopped', TIMEOUT);
		// where the program was, as the screen's C-c and --timeout say
		// it: the summary and its hints in the console, the headline as
		// the stop's description
		const seen = [];
		dc.on('output', e => { if (e.body.category === 'console') seen.push(e.body.output); });
		// (past the printf's write: in the spin loop)
		await new Promise(r => setTimeout(r, 300));
		await dc.pauseRequest({ threadId: 1 });
		const ev = (await stopped).body;
		assert.strictEqual(ev.reason, 'pause');
		assert.ok(/^Hang: the program was still running after \d+ s$/.test(ev.description),
			ev.description);
		const text = seen.join('');
		assert.ok(/\n {2}stopped at \S*spin\.c:\d+ in main/.test(text), text);
		assert.ok(/\(hang-spin\)/.test(text), text);
		const st = await dc.stackTraceRequest({ threadId: ev.threadId });
		// the spin loop calls time(): the pause may land in libc
		assert.ok(st.body.stackFrames.some(f => f.name === 'main'),
			st.body.stackFrames.map(f => f.name).join(','));
		const term = dc.waitForEvent('terminated', TIMEOUT);
		await dc.terminateRequest({});
		await term;
	},

	async gdb_timeout_hang(dc) {
		// the launch's timeout, as --timeout: a run still going after it
		// is interrupted, and the stop says where it was, as a hang
		await dc.start();
		await dc.initializeRequest({ adapterID: 'cudbg' });
		const initialized = dc.waitForEvent('initialized', TIMEOUT);
		const seen = [];
		dc.on('output', e => { if (e.body.category === 'console') seen.push(e.body.output); });
		await dc.launchRequest({ program: path.join(BUILD, 'progs', 'spin'),
			debugger: 'gdb', memcheck: 'never', timeout: 2 });
		await initialized;
		const stopped = dc.waitForEvent('stopped', TIMEOUT);
		await dc.configurationDoneRequest();
		const ev = (await stopped).body;
		assert.strictEqual(ev.reason, 'pause');
		assert.ok(/^Hang: the program was still running after [2-9] s$/.test(ev.description),
			ev.description);
		assert.ok(/\(hang-spin\)/.test(seen.join('')), seen.join(''));
		const term = dc.waitForEvent('terminated', TIMEOUT);
		await dc.terminateRequest({});
		await term;
	},

	async gdb_attach_detach(dc) {
		// attach to a running process; disconnect detaches and it lives on
		const spin = require('child_process').spawn(path.join(BUILD, 'progs', 'spin'),
			[], { stdio: 'ignore' });
		try {
			await dc.start();
			await dc.initializeRequest({ adapterID: 'cudbg' });
			const initialized = dc.waitForEvent('initialized', TIMEOUT);
			const a = await dc.attachRequest({ pid: spin.pid, program: path.join(BUILD, 'progs', 'spin'),
				debugger: 'gdb' }).then(() => 'ok', e => e.message);
			if (a !== 'ok' && /ptrace|not permitted/i.test(a)) {
				throw Object.assign(new Error('attach refused here: ' + a), { skip: true });
			}
			assert.strictEqual(a, 'ok');
			await initialized;
			const stopped = dc.waitForEvent('stopped', TIMEOUT);
			await dc.configurationDoneRequest();
			const ev = (await stopped).body;
			const st = await dc.stackTraceRequest({ threadId: ev.threadId });
			assert.ok(st.body.stackFrames.some(f => f.name === 'main'));
			await dc.disconnectRequest({});
			dc.disconnected = true; // the adapter ends: no second disconnect
			await new Promise(r => setTimeout(r, 300));
			assert.strictEqual(spin.exitCode, null, 'the process lives on after detach');
			process.kill(spin.pid, 0);
		} finally {
			spin.kill('SIGKILL');
		}
	},

	async hostile_debugger_text(dc) {
		// tests/data/fake-debugger puts terminal attacks in every stream,
		// frame name, file name, local and error: none reaches the editor
		// raw (ESC, C1, bidi overrides become visible escapes)
		const seen = [];
		dc.on('output', e => seen.push(e.body.output));
		const stopped = await start(dc, { program: path.join(BUILD, 'progs', 'steps'),
			debugger: path.join(ROOT, 'tests', 'data', 'fake-debugger'), memcheck: 'never',
			env: { FAKE_DBG_MODE: 'hostile' } });
		const tid = stopped.body.threadId;
		seen.push(stopped.body.description || '');
		const st = await dc.stackTraceRequest({ threadId: tid });
		seen.push(JSON.stringify(st.body));
		const sc = await dc.scopesRequest({ frameId: st.body.stackFrames[0].id });
		for (const s of sc.body.scopes)
			seen.push(JSON.stringify((await dc.variablesRequest({
				variablesReference: s.variablesReference })).body));
		const all = seen.join('\n');
		assert.ok(all.length > 0);
		assert.ok(!/[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069]/.test(all),
			'raw control text reached the editor: ' + JSON.stringify(all.slice(0, 300)));
	},

	async debugger_dies(dc) {
		// the debugger killed while the program starts: terminated, and
		// the adapter still answers and ends cleanly (checked by main)
		await dc.start();
		await dc.initializeRequest({ adapterID: 'cudbg' });
		const initialized = dc.waitForEvent('initialized', TIMEOUT);
		await dc.launchRequest({ program: path.join(BUILD, 'progs', 'steps'),
			debugger: path.join(ROOT, 'tests', 'data', 'fake-debugger'), memcheck: 'never',
			env: { FAKE_DBG_MODE: 'dieatrun' } });
		await initialized;
		const term = dc.waitForEvent('terminated', TIMEOUT);
		await dc.configurationDoneRequest();
		await term;
		const th = await dc.threadsRequest();
		assert.ok(Array.isArray(th.body.threads));
	},

	async unknown_request_and_bad_launch(dc) {
		await dc.start();
		await dc.initializeRequest({ adapterID: 'cudbg' });
		const u = await dc.customRequest('noSuchThing', {}).then(() => 'ok', e => e.message);
		assert.ok(/unknown request 'noSuchThing'/.test(u), u);
		const l = await dc.launchRequest({}).then(() => 'ok', e => e.message);
		assert.ok(/launch needs "program"/.test(l), l);
	},
};

// The adapter's own exit status after disconnect: 0, or a crash, or (in
// the ASan pass) a leak report's status.
function adapterExit(proc, ms) {
	return new Promise(resolve => {
		if (!proc) return resolve(0);
		if (proc.exitCode !== null || proc.signalCode !== null)
			return resolve(proc.exitCode !== null ? proc.exitCode : proc.signalCode);
		const t = setTimeout(() => resolve('still running after ' + ms + ' ms'), ms);
		proc.on('exit', (code, sig) => { clearTimeout(t); resolve(code !== null ? code : sig); });
	});
}

async function main() {
	const only = process.argv[2];
	let failed = 0;
	for (const [name, fn] of Object.entries(cases)) {
		if (only && name !== only) continue;
		const dc = client();
		current = name;
		adapterEnd = '';
		let verdict = 'PASS dap/' + name;
		try {
			const started = dc.start.bind(dc);
			dc.start = async (...a) => {
				await started(...a);
				const p = dc._adapterProcess;
				if (p) p.on('exit', (c, sig) => { adapterEnd = 'ended with ' + (c !== null ? c : sig); });
			};
			await fn(dc);
		} catch (e) {
			verdict = e && e.skip ? 'SKIP dap/' + name + ': ' + e.message
				: 'FAIL dap/' + name + ': ' + String(e && e.stack || e).split('\n').slice(0, 3).join(' | ');
		}
		const proc = dc._adapterProcess;
		if (!dc.disconnected)
			await Promise.race([dc.disconnectRequest({}).catch(() => {}),
				new Promise(r => setTimeout(r, TIMEOUT))]);
		const code = await adapterExit(proc, TIMEOUT);
		dc.stopAdapter();
		if (code !== 0 && verdict.startsWith('PASS'))
			verdict = 'FAIL dap/' + name + ': the adapter ended with ' + code + ' after disconnect';
		if (verdict.startsWith('FAIL'))
			failed++;
		console.log(verdict);
	}
	finished = true;
	process.exit(failed ? 1 : 0);
}

// A promise nobody will resolve empties node's event loop and node exits
// with status 0: that must never pass for a finished run.
let finished = false, current = '';
let adapterEnd = '';
process.on('exit', () => {
	if (!finished) {
		console.log('FAIL dap/' + current + ': the client stopped waiting with nothing pending' +
			(adapterEnd ? ' (the adapter ' + adapterEnd + ')' : ''));
		process.exitCode = 1;
	}
});

main();
