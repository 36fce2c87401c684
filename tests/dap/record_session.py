#!/usr/bin/env python3
"""A DAP session through `cudbg-tui --dap`, recorded (launch's `record`).

For the GPU machine, which has python3 but no node (run 27): a plain
client with the standard library only drives the server through
initialize, launch, the exception filter, configurationDone, the stop,
threads, the stacks of the stopped thread and of host thread 1,
exceptionInfo and disconnect, and prints what it got, one line each.
CI replays the recording through DAP (tests/dap/dap_test.js).

  record_session.py BIN RECORDING [--debugger gdb] PROGRAM [ARGS...]
"""
import json
import subprocess
import sys
import time


class Client:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        self.seq = 0
        self.events = []

    def send(self, command, arguments=None):
        self.seq += 1
        msg = {"seq": self.seq, "type": "request", "command": command}
        if arguments is not None:
            msg["arguments"] = arguments
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()
        return self.seq

    def read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise EOFError("the server closed its output")
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(length))

    def request(self, command, arguments=None, timeout=180):
        seq = self.send(command, arguments)
        end = time.time() + timeout
        while time.time() < end:
            m = self.read()
            if m.get("type") == "event":
                self.events.append(m)
            elif m.get("request_seq") == seq:
                return m
        raise TimeoutError(command)

    def event(self, name, timeout=240):
        end = time.time() + timeout
        while time.time() < end:
            for i, e in enumerate(self.events):
                if e.get("event") == name:
                    return self.events.pop(i)
            m = self.read()
            if m.get("type") == "event":
                self.events.append(m)
        raise TimeoutError(name)


def frames(resp):
    return [(f.get("name"), (f.get("source") or {}).get("path"), f.get("line"))
            for f in resp.get("body", {}).get("stackFrames", [])]


def main():
    argv = sys.argv[1:]
    if len(argv) < 3:
        print(__doc__)
        return 2
    binary, record, rest = argv[0], argv[1], argv[2:]
    launch = {"memcheck": "never", "record": record}
    if rest[0] == "--debugger":
        launch["debugger"] = rest[1]
        rest = rest[2:]
    launch["program"], launch["args"] = rest[0], rest[1:]
    c = Client([binary, "--dap"])
    print("initialize", c.request("initialize", {"adapterID": "cudbg"})["success"])
    print("launch", c.request("launch", launch)["success"])
    c.event("initialized")
    print("exceptions", c.request("setExceptionBreakpoints",
                                  {"filters": ["gpu"]})["success"])
    c.request("configurationDone")
    stop = c.event("stopped")["body"]
    print("stopped", stop.get("reason"), stop.get("threadId"),
          json.dumps(stop.get("description")))
    th = c.request("threads")["body"]["threads"]
    print("threads", json.dumps([t["name"] for t in th][:4]))
    tid = stop.get("threadId")
    print("stack", json.dumps(frames(c.request("stackTrace",
                                               {"threadId": tid}))[:4]))
    host = c.request("stackTrace", {"threadId": 1})
    print("host", json.dumps(frames(host)[:6]))
    info = c.request("exceptionInfo", {"threadId": tid})
    body = info.get("body", {})
    hints = [h["id"] for h in body.get("details", {}).get("cudbg", {})
             .get("hints", [])]
    print("exceptionInfo", body.get("exceptionId"), json.dumps(hints[:3]))
    c.request("disconnect", {"terminateDebuggee": True}, timeout=60)
    c.p.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
