#!/usr/bin/env python3
"""Writes the kernel objects of every gpu.binary in an MLIR file to a directory.

  extract-gpu-objects.py lowered.mlir OUTDIR

For each `gpu.binary @NAME [#gpu.object<..., "BYTES">]` it writes OUTDIR/NAME.ptx
when the object is PTX text (pe-gpu-pipeline{format=isa}), else
OUTDIR/NAME.bin, and prints the paths, one per line. MLIR prints the bytes as a
string literal with \\XX hex escapes, \\\\ and \\".
"""
import pathlib
import re
import sys


def decode(literal):
    out = bytearray()
    i = 0
    while i < len(literal):
        c = literal[i]
        if c == "\\":
            nxt = literal[i + 1]
            if nxt in "\\\"":
                out.append(ord(nxt))
                i += 2
            elif nxt == "n":
                out.append(10)
                i += 2
            elif nxt == "t":
                out.append(9)
                i += 2
            else:
                out.append(int(literal[i + 1:i + 3], 16))
                i += 3
        else:
            out += c.encode()
            i += 1
    return bytes(out)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: extract-gpu-objects.py lowered.mlir OUTDIR")
    text = pathlib.Path(sys.argv[1]).read_text()
    outdir = pathlib.Path(sys.argv[2])
    outdir.mkdir(parents=True, exist_ok=True)
    found = 0
    # The object literal is the last string of the gpu.object.
    for m in re.finditer(r'gpu\.binary @([\w$.]+)[^\n]*?"((?:[^"\\]|\\.)*)">\]',
                         text):
        data = decode(m.group(2))
        ptx = data.lstrip().startswith(b"//") or b".version" in data[:4096]
        path = outdir / (m.group(1) + (".ptx" if ptx else ".bin"))
        path.write_bytes(data)
        print(path)
        found += 1
    if not found:
        sys.exit("extract-gpu-objects.py: no gpu.binary in " + sys.argv[1])


if __name__ == "__main__":
    main()
