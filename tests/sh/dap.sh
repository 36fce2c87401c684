#!/bin/sh
# cudbg-tui --dap: malformed DAP input gets error responses and never
# crashes the server (bad Content-Length, a header without ':', a body
# that is not JSON, JSON that is not a request, an unknown command, too
# deep nesting, invalid UTF-8, a body over the limit, a truncated body at
# the end), the stream stays in step after each (a request after them is
# answered); --dap-port listens on 127.0.0.1 only; then the real DAP
# client suite (tests/dap/dap_test.js, the DebugClient of
# @vscode/debugadapter-testsupport) against gdb and the cuda-gdb
# recordings.  That part SKIPs only when node is missing.
set -u
BIN=${CUDBG_BIN:-build/cudbg-tui}
ROOT=${CUDBG_ROOT:-$(pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS dap/$1"; }
fail() { echo "FAIL dap/$1: $2"; fails=$((fails + 1)); }

# frame BODY: one DAP message with a correct Content-Length
frame() {
	printf 'Content-Length: %d\r\n\r\n%s' "$(printf '%s' "$1" | wc -c)" "$1"
}

{
	printf 'Content-Length: abc\r\n\r\n'
	printf 'Content-Type: x\r\nNoColonHere\r\n\r\n'
	frame 'this is not json'
	frame '[1,2]'
	frame '{"seq":7,"type":"request","command":"bogus"}'
	frame '{"seq":8,"type":"request","command":"threads","arguments":5}'
	frame "$(printf '%0.s[' $(seq 100))$(printf '%0.s]' $(seq 100))"
	printf 'Content-Length: 12\r\n\r\n"\377\376bad utf8"'
	frame '{"seq":9,"type":"request","command":"initialize","arguments":{},}'
	printf 'Content-Length: 20000000\r\n\r\n'
	head -c 20000000 /dev/zero | tr '\0' 'x'
	frame '{"seq":10,"type":"request","command":"initialize","arguments":{"adapterID":"t"}}'
	printf 'Content-Length: 100\r\n\r\n{"seq":11,'
} >"$tmp/in"
"$BIN" --dap <"$tmp/in" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ]; then
	fail malformed_exit "exit $rc: $(head -c 300 "$tmp/err")"
else
	pass malformed_exit
fi
check() { # name pattern
	if grep -q -- "$2" "$tmp/out"; then pass "$1"; else
		fail "$1" "no '$2' in the output: $(head -c 400 "$tmp/out")"; fi
}
check bad_length 'Content-Length is not a number'
check header_no_colon "a header line without ':'"
check not_json '"message":"the message is not JSON (offset 0: expected a value)"'
check not_request 'not a DAP request'
check unknown_command '"request_seq":7,"success":false,"command":"bogus","message":"unknown request'
check args_not_object '"request_seq":8,"success":false,"command":"threads","message":"arguments of'
check too_deep 'nested too deeply'
check bad_utf8 'invalid UTF-8 in a string'
check trailing_comma "expected a key string"
check huge_body 'a message of 20000000 bytes is over the limit'
check in_step_after '"request_seq":10,"success":true,"command":"initialize"'
# every answer is framed: each body follows a Content-Length header
heads=$(grep -o 'Content-Length: [0-9]*' "$tmp/out" | wc -l)
if [ "$heads" -eq 11 ]; then pass framed_answers; else
	fail framed_answers "$heads responses, expected 11"; fi

# --dap-port: a bad port is a one-line error; port 0 listens on 127.0.0.1
"$BIN" --dap-port 99999 >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q -- '--dap-port needs a port' "$tmp/err"; then
	pass bad_port; else fail bad_port "rc=$rc $(cat "$tmp/err")"; fi
"$BIN" --dap prog >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "launch configuration" "$tmp/err"; then
	pass program_on_command_line; else fail program_on_command_line "rc=$rc"; fi

if command -v node >/dev/null 2>&1; then
	"$BIN" --dap-port 0 </dev/null >"$tmp/pout" 2>"$tmp/perr" &
	pid=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q listening "$tmp/perr"; do
		sleep 0.1; i=$((i + 1)); done
	port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/perr")
	if [ -n "$port" ] && node -e '
const net = require("net");
const s = net.connect(Number(process.argv[1]), "127.0.0.1", () => {
	const b = JSON.stringify({ seq: 1, type: "request", command: "initialize", arguments: {} });
	s.write("Content-Length: " + Buffer.byteLength(b) + "\r\n\r\n" + b);
});
let got = "";
s.on("data", d => { got += d; if (/"success":true/.test(got)) { s.end(); process.exit(0); } });
setTimeout(() => process.exit(1), 10000);' "$port"; then
		pass port_serves
	else
		fail port_serves "no answer on port '$port': $(cat "$tmp/perr")"
	fi
	wait $pid 2>/dev/null
	if ss -ltn 2>/dev/null | grep -q "0.0.0.0:$port "; then
		fail port_loopback "listening on every interface"
	fi
else
	echo "SKIP dap/port_serves: node is not installed (apt-get install nodejs)"
fi

# The real DAP client suite.
if ! command -v node >/dev/null 2>&1; then
	echo "SKIP dap/client: node is not installed (apt-get install nodejs npm; then npm ci in tests/dap)"
	exit $((fails > 0))
fi
# .ci/run installs the client (npm ci); otherwise the first pass that
# needs it does, under a lock (make test runs two passes at once).
install_client() {
	cd "$ROOT/tests/dap" || return 1
	[ -d node_modules/@vscode/debugadapter-testsupport ] && return 0
	npm ci --no-audit --no-fund
}
if [ ! -d "$ROOT/tests/dap/node_modules/@vscode/debugadapter-testsupport" ]; then
	if command -v flock >/dev/null 2>&1; then
		( flock 9; install_client ) 9>"$ROOT/tests/dap/.npm-lock" >"$tmp/npm" 2>&1
	else
		( install_client ) >"$tmp/npm" 2>&1
	fi
	if [ ! -d "$ROOT/tests/dap/node_modules/@vscode/debugadapter-testsupport" ]; then
		fail client "tests/dap: npm ci failed: $(tail -3 "$tmp/npm")"
		exit 1
	fi
fi
node "$ROOT/tests/dap/dap_test.js" || fails=$((fails + 1))
exit $((fails > 0))
