#!/usr/bin/env python3
"""Runs a kinrow engine with bot options set first, for the referee (which
has no per-engine options yet):

  referee --engine "n20k=python3 scripts/with-options.py nodes=20000 -- target/release/kinrow --bot minimax" ...

Each NAME=VALUE becomes `set NAME VALUE`, sent before anything the referee
says; the engine's answers to them are swallowed (a refused option stops the
shim with the engine's message, so a typo cannot pass unnoticed). Then the
shim passes lines both ways unchanged.
"""
import os
import subprocess
import sys
import threading


def main():
    args = sys.argv[1:]
    if "--" not in args:
        sys.exit("usage: with-options.py NAME=VALUE ... -- COMMAND ...")
    cut = args.index("--")
    options, command = args[:cut], args[cut + 1:]
    p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    out = p.stdout
    for option in options:
        name, _, value = option.partition("=")
        p.stdin.write(("set %s %s\n" % (name, value)).encode())
        p.stdin.flush()
        reply = out.readline()
        while True:  # the reply ends with a blank line
            line = out.readline()
            if not line.strip():
                break
        if not reply.startswith(b"="):
            sys.exit("with-options: set %s %s: %s" % (name, value, reply.decode().strip()))

    def pump():
        while True:
            b = os.read(out.fileno(), 65536)
            if not b:
                break
            os.write(1, b)

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    for line in sys.stdin.buffer:
        p.stdin.write(line)
        p.stdin.flush()
    p.stdin.close()
    p.wait()
    t.join(timeout=1)


if __name__ == "__main__":
    main()
