// DAP request latency against the same MI work (docs/performance.md).
//   node tests/dap/latency.js [N]
// 1. gdb on tests/progs/dap_prog.c stopped in twice(): N rounds of
//    threads, stackTrace, scopes + variables through `cudbg-tui --dap`,
//    and N rounds of the MI commands behind them (-thread-info,
//    -stack-list-frames, -stack-list-variables --simple-values) sent to
//    gdb --interpreter=mi3 directly.  Both: median and p95 in ms.
// 2. The big_grid recording (a 42k-thread grid): the threads answer's
//    size (the threads table is never sent; only the CUDA focus).
// Prints `measure=NAME value=X unit=U ref=Y ratio=R` lines.
'use strict';
const cp = require('child_process');
const fs = require('fs');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = process.env.CUDBG_BIN || path.join(ROOT, 'build', 'cudbg-tui');
const BUILD = process.env.CUDBG_BUILD || path.join(ROOT, 'build');
const PROG = path.join(BUILD, 'progs', 'dap_prog');
const SRC = path.join(ROOT, 'tests', 'progs', 'dap_prog.c');
const N = Number(process.argv[2] || 200);
const line = fs.readFileSync(SRC, 'utf8').split('\n').findIndex(l => l.includes('MARK_TWICE_BODY')) + 1;

function stats(v) {
	v.sort((a, b) => a - b);
	return { med: v[Math.floor(v.length / 2)], p95: v[Math.floor(v.length * 0.95)] };
}

async function timeIt(fn) {
	const t = process.hrtime.bigint();
	await fn();
	return Number(process.hrtime.bigint() - t) / 1e6;
}

async function dapRounds() {
	const dc = new DebugClient(BIN, '--dap', 'cudbg');
	dc.defaultTimeout = 30000;
	await dc.start();
	await dc.initializeRequest({ adapterID: 'cudbg' });
	const init = dc.waitForEvent('initialized');
	await dc.launchRequest({ program: PROG, debugger: 'gdb', memcheck: 'never' });
	await init;
	await dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line }] });
	const stopped = dc.waitForEvent('stopped');
	await dc.configurationDoneRequest();
	const tid = (await stopped).body.threadId;
	const r = { threads: [], stackTrace: [], variables: [] };
	let frameId;
	for (let i = 0; i < N; i++) {
		r.threads.push(await timeIt(() => dc.threadsRequest()));
		r.stackTrace.push(await timeIt(async () => {
			frameId = (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames[0].id;
		}));
		r.variables.push(await timeIt(async () => {
			const s = await dc.scopesRequest({ frameId });
			await dc.variablesRequest({ variablesReference: s.body.scopes[0].variablesReference });
		}));
	}
	await dc.stop();
	return r;
}

// gdb over MI directly: the reference.
function miRounds() {
	return new Promise((resolve, reject) => {
		const g = cp.spawn('gdb', ['-q', '-nx', '--interpreter=mi3', PROG]);
		let buf = '', waiting = null;
		g.stdout.on('data', d => {
			buf += d;
			let i;
			while ((i = buf.indexOf('\n')) >= 0) {
				const l = buf.slice(0, i);
				buf = buf.slice(i + 1);
				if (waiting && waiting.test(l)) { const w = waiting; waiting = null; w.done(); }
			}
		});
		const send = (cmd, re) => new Promise(res => {
			waiting = { test: s => re.test(s), done: res };
			g.stdin.write(cmd + '\n');
		});
		(async () => {
			await send('-break-insert dap_prog.c:' + line, /^\^done/);
			await send('-exec-run', /^\*stopped/);
			const r = { threads: [], stackTrace: [], variables: [] };
			for (let i = 0; i < N; i++) {
				r.threads.push(await timeIt(() => send('-thread-info', /^\^done/)));
				r.stackTrace.push(await timeIt(() => send('-stack-list-frames', /^\^done/)));
				r.variables.push(await timeIt(() => send('-stack-list-variables --simple-values', /^\^done/)));
			}
			g.stdin.write('-gdb-exit\n');
			resolve(r);
		})().catch(reject);
	});
}

async function bigGrid() {
	const dc = new DebugClient(BIN, '--dap', 'cudbg');
	dc.defaultTimeout = 60000;
	await dc.start();
	await dc.initializeRequest({ adapterID: 'cudbg' });
	const init = dc.waitForEvent('initialized');
	await dc.launchRequest({ replay: path.join(ROOT, 'tests', 'shared', 'fixtures', 'big_grid.mi.log.gz') });
	await init;
	const stopped = dc.waitForEvent('stopped', 60000);
	await dc.configurationDoneRequest();
	await stopped;
	let th;
	const ms = await timeIt(async () => { th = await dc.threadsRequest(); });
	await dc.stop();
	return { ms, n: th.body.threads.length, bytes: JSON.stringify(th.body).length };
}

(async () => {
	const dap = await dapRounds();
	const mi = await miRounds();
	for (const k of ['threads', 'stackTrace', 'variables']) {
		const a = stats(dap[k]), b = stats(mi[k]);
		console.log(`measure=dap_${k}_median value=${a.med.toFixed(3)} unit=ms ref=${b.med.toFixed(3)} ratio=${(a.med / b.med).toFixed(2)}`);
		console.log(`measure=dap_${k}_p95 value=${a.p95.toFixed(3)} unit=ms ref=${b.p95.toFixed(3)} ratio=${(a.p95 / b.p95).toFixed(2)}`);
	}
	const g = await bigGrid();
	console.log(`measure=dap_threads_big_grid value=${g.ms.toFixed(3)} unit=ms threads=${g.n} bytes=${g.bytes}`);
})().catch(e => { console.error(e); process.exit(1); });
