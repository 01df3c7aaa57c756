#!/usr/bin/env python3
"""Drives gnn-lsp over stdio with a recorded JSON-RPC session (lit tests).

A session is the lines of a file that start (after an optional '# ') with:
  INIT              initialize + initialized
  OPEN path         didOpen of a file (relative to the session file)
  SEND {json}       one message; %{uri:path} becomes the file's URI
  REQUEST method path [line character]
                    textDocument/<method> on an open file, at a 0-based
                    position; ids count up from 1
  CHANGE path "text"  didChange with the whole new text (a JSON string)
  CLOSE path        didClose
  RAW 'bytes'       bytes as a Python literal, sent unframed (bad framing)
  NESTED id N [|{    a request whose params are arrays (or objects) N deep
  END               shutdown + exit
Every message is framed with Content-Length, the whole session is piped to
the server, and each message the server writes is printed on its own line
(JSON with sorted keys), then 'exit: N'. Framing errors in the server's
output fail the script.

  --diagnostics      print publishDiagnostics the way gnnc prints them
                     (path:line:col: error: message, notes after)
  --compare-gnnc GNNC F...
                     for each file, compare the server's diagnostics with
                     what `GNNC --emit=ast F` prints; exit 1 on a difference
  --open-each F...   open each file, ask for symbols and for hover,
                     definition and completion at many positions; check
                     that every request is answered
"""
import argparse
import ast
import json
import os
import pathlib
import re
import subprocess
import sys


def frame(message):
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def uri(path):
    return pathlib.Path(os.path.abspath(path)).as_uri()


def read_text(path):
    # LSP carries text as JSON strings: bytes that are not UTF-8 are replaced.
    return pathlib.Path(path).read_bytes().decode("utf-8", errors="replace")


INIT = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}}]
END = [{"jsonrpc": "2.0", "id": 999999, "method": "shutdown"},
       {"jsonrpc": "2.0", "method": "exit"}]


def did_open(path):
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri(path), "languageId": "gnn",
                                        "version": 1,
                                        "text": read_text(path)}}}


def parse_session(session):
    base = os.path.dirname(os.path.abspath(session))
    out = bytearray()
    next_id = 1
    for line in pathlib.Path(session).read_text().splitlines():
        line = re.sub(r"^#\s?", "", line)
        word, _, rest = line.partition(" ")
        if word == "INIT":
            out += b"".join(frame(m) for m in INIT)
        elif word == "END":
            out += b"".join(frame(m) for m in END)
        elif word == "OPEN":
            out += frame(did_open(os.path.join(base, rest.strip())))
        elif word == "SEND":
            text = re.sub(r"%\{uri:([^}]*)\}",
                          lambda m: uri(os.path.join(base, m.group(1))), rest)
            out += frame(json.loads(text))
        elif word == "REQUEST":
            method, path, *pos = rest.split()
            params = {"textDocument": {"uri": uri(os.path.join(base, path))}}
            if pos:
                params["position"] = {"line": int(pos[0]),
                                      "character": int(pos[1])}
            out += frame({"jsonrpc": "2.0", "id": next_id,
                          "method": "textDocument/" + method,
                          "params": params})
            next_id += 1
        elif word in ("CHANGE", "CLOSE"):
            path, _, text = rest.partition(" ")
            doc = {"uri": uri(os.path.join(base, path)), "version": 2}
            params = {"textDocument": doc}
            if word == "CHANGE":
                params["contentChanges"] = [{"text": json.loads(text)}]
            out += frame({"jsonrpc": "2.0",
                          "method": "textDocument/did" + word.title(),
                          "params": params})
        elif word == "RAW":
            out += ast.literal_eval(rest.strip())
        elif word == "NESTED":
            # NESTED id depth [ or {: a request whose params nest that deep.
            ident, depth, kind = rest.split()
            depth = int(depth)
            inner = ("[" * depth + "]" * depth if kind == "[" else
                     '{"a":' * depth + "1" + "}" * depth)
            body = ('{"jsonrpc":"2.0","id":%s,"method":"textDocument/hover",'
                    '"params":%s}' % (ident, inner)).encode()
            out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return bytes(out)


def read_messages(data):
    messages = []
    pos = 0
    while pos < len(data):
        end = data.find(b"\r\n\r\n", pos)
        if end < 0:
            sys.exit("lsp-session: unterminated header in output: %r"
                     % data[pos:pos + 80])
        m = re.fullmatch(rb"Content-Length: (\d+)", data[pos:end])
        if not m:
            sys.exit("lsp-session: bad header in output: %r" % data[pos:end])
        start = end + 4
        size = int(m.group(1))
        if len(data) < start + size:
            sys.exit("lsp-session: truncated message in output")
        messages.append(json.loads(data[start:start + size]))
        pos = start + size
    return messages


def run(server, stdin):
    proc = subprocess.run(server, input=stdin, stdout=subprocess.PIPE,
                          timeout=120)
    return read_messages(proc.stdout), proc.returncode


def print_diagnostics(messages, out=None):
    out = out if out is not None else []
    for m in messages:
        if m.get("method") != "textDocument/publishDiagnostics":
            continue
        path = pathlib.Path(m["params"]["uri"][len("file://"):])
        for d in m["params"]["diagnostics"]:
            sev = {1: "error", 2: "warning", 3: "note"}[d["severity"]]
            start = d["range"]["start"]
            out.append("%s:%d:%d: %s: %s" % (path, start["line"] + 1,
                                             start["character"] + 1, sev,
                                             d["message"]))
            for r in d.get("relatedInformation", []):
                start = r["location"]["range"]["start"]
                out.append("%s:%d:%d: note: %s" % (
                    r["location"]["uri"][len("file://"):], start["line"] + 1,
                    start["character"] + 1, r["message"]))
    return out


def compare_gnnc(server, gnnc, files):
    same = True
    for path in files:
        path = os.path.abspath(path)
        stdin = b"".join(frame(m) for m in INIT + [did_open(path)] + END)
        lsp = print_diagnostics(run(server, stdin)[0])
        proc = subprocess.run(gnnc + ["--emit=ast", "-o", os.devnull, path],
                              stderr=subprocess.PIPE, timeout=60)
        pattern = re.compile(r"^\S+:\d+:\d+: (error|warning|note): ")
        ref = [l for l in proc.stderr.decode().splitlines() if pattern.match(l)]
        if lsp == ref:
            print("same: %s (%d diagnostics)" % (os.path.basename(path), len(ref)))
            continue
        same = False
        print("DIFFERENT: %s" % path)
        for a, b in zip(ref + ["<none>"] * len(lsp), lsp + ["<none>"] * len(ref)):
            if a != b:
                print("  gnnc:    %s\n  gnn-lsp: %s" % (a, b))
                break
    sys.exit(0 if same else 1)


def open_each(server, files):
    out = bytearray(b"".join(frame(m) for m in INIT))
    next_id = 1
    asked = 0
    for path in files:
        out += frame(did_open(path))
        doc = {"uri": uri(path)}
        out += frame({"jsonrpc": "2.0", "id": next_id,
                      "method": "textDocument/documentSymbol",
                      "params": {"textDocument": doc}})
        next_id += 1
        lines = read_text(path).split("\n")
        # Every 3rd character of each line, and one past its end.
        for ln, text in enumerate(lines):
            for ch in list(range(0, len(text), 3)) + [len(text) + 1]:
                for method in ("hover", "definition", "completion"):
                    out += frame({"jsonrpc": "2.0", "id": next_id,
                                  "method": "textDocument/" + method,
                                  "params": {"textDocument": doc,
                                             "position": {"line": ln,
                                                          "character": ch}}})
                    next_id += 1
        out += frame({"jsonrpc": "2.0", "method": "textDocument/didClose",
                      "params": {"textDocument": doc}})
    out += b"".join(frame(m) for m in END)
    messages, code = run(server, bytes(out))
    answered = {m["id"] for m in messages if "id" in m and
                ("result" in m or "error" in m)}
    errors = [m for m in messages if "error" in m]
    missing = [i for i in range(1, next_id) if i not in answered]
    print("files: %d requests: %d answered: %d errors: %d exit: %d" % (
        len(files), next_id - 1, next_id - 1 - len(missing), len(errors), code))
    for m in errors[:5]:
        print("error response:", json.dumps(m, sort_keys=True))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("server", help="the gnn-lsp command")
    parser.add_argument("session", nargs="?")
    parser.add_argument("--diagnostics", action="store_true")
    parser.add_argument("--open-each", nargs="+", metavar="FILE")
    parser.add_argument("--compare-gnnc", nargs="+", metavar="ARG")
    args = parser.parse_args()
    server = args.server.split()
    if args.compare_gnnc:
        compare_gnnc(server, args.compare_gnnc[0].split(), args.compare_gnnc[1:])
    if args.open_each:
        open_each(server, args.open_each)
        return
    messages, code = run(server, parse_session(args.session))
    if args.diagnostics:
        print("\n".join(print_diagnostics(messages)))
        return
    for m in messages:
        print(json.dumps(m, sort_keys=True, separators=(",", ":")))
    print("exit: %d" % code)


if __name__ == "__main__":
    main()
