#!/usr/bin/env python3
"""Rewrites pe.attention ops of the pre-DPS syntax to the destination-style one.

Before (issue 7, item 2):

    %o = pe.attention %q, %k, %v bias(%b : tensor<8x8xf32>) {causal}
           : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
           -> tensor<1x4x8x16xf32>

After: a tensor.empty of each result type is inserted before the op (sized
with tensor.dim of the query, and of the value for the channels, where the
result type is dynamic), and `outs(...)` goes after the last operand group,
before the attribute dictionary:

    %attn_init0 = tensor.empty() : tensor<1x4x8x16xf32>
    %o = pe.attention %q, %k, %v bias(%b : tensor<8x8xf32>)
           outs(%attn_init0 : tensor<1x4x8x16xf32>) {causal}
           : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
           -> tensor<1x4x8x16xf32>

An op with the lse result gets `outs(%init, %lse_init : T, Tlse)`. Ops that
already have `outs(` are left alone, so the script can run twice. Comment
lines (FileCheck patterns, expected-* annotations) are not rewritten: update
CHECK lines by hand. An `expected-...@+N` comment block directly above an op
keeps its distance to the op (the new lines go above the block).

Usage: utils/attention-dps-rewrite.py FILE... (rewrites in place, prints
one line per rewritten op and per occurrence it could not parse).
"""
import re
import sys

OPEN = {"(": ")", "[": "]", "{": "}", "<": ">"}
CLOSE = {v: k for k, v in OPEN.items()}


def skip_ws(s, i):
    while i < len(s) and s[i] in " \t\n":
        i += 1
    return i


def match_group(s, i):
    """s[i] is an opening bracket: the index after its match."""
    depth = 0
    while i < len(s):
        c = s[i]
        if c == "-" and s.startswith("->", i):
            i += 2
            continue
        if c in OPEN:
            depth += 1
        elif c in CLOSE:
            depth -= 1
            if depth == 0:
                return i + 1
        elif c == '"':
            i = s.index('"', i + 1)
        i += 1
    raise ValueError("unbalanced")


def parse_type(s, i):
    """A `tensor<...>` (or other) type at s[i]: its end."""
    m = re.compile(r"[a-zA-Z0-9_.!]+").match(s, i)
    if not m:
        raise ValueError("no type at %r" % s[i:i + 20])
    j = m.end()
    if j < len(s) and s[j] == "<":
        j = match_group(s, j)
    return j


def dims_of(t):
    m = re.match(r"tensor<((?:[0-9?]+x)*)", t)
    if not m:
        raise ValueError("not a ranked tensor: " + t)
    return [d for d in m.group(1).split("x") if d]


def rewrite(text, path):
    out = []
    pos = 0
    counter = [0]
    notes = []
    for m in re.finditer(r"\bpe\.attention\s+(%[\w.$#-]+)", text):
        start = m.start()
        if start < pos:
            continue
        line_start = text.rfind("\n", 0, start) + 1
        line = text[line_start:start]
        if "//" in line or "`" in line:
            continue  # a comment, a CHECK line, or prose
        lineno = text.count("\n", 0, start) + 1
        try:
            i = m.end()
            operands = [m.group(1)]
            for _ in range(2):
                i = skip_ws(text, i)
                if text[i] != ",":
                    raise ValueError("expected three operands")
                i = skip_ws(text, i + 1)
                om = re.compile(r"%[\w.$#-]+").match(text, i)
                if not om:
                    raise ValueError("expected an operand")
                operands.append(om.group(0))
                i = om.end()
            # Operand groups up to the attribute dictionary or the colon.
            attr_start = None
            while True:
                i = skip_ws(text, i)
                c = text[i]
                if c == ":":
                    break
                if c == "{":
                    attr_start = i
                    i = match_group(text, i)
                    continue
                if text.startswith("outs(", i):
                    raise StopIteration
                if c in OPEN:
                    i = match_group(text, i)
                    continue
                if c == "#":
                    wm = re.compile(r"#[\w.]+").match(text, i)
                    i = wm.end()
                    continue
                wm = re.compile(r"[\w.]+").match(text, i)
                if not wm:
                    raise ValueError("unexpected %r" % text[i:i + 20])
                i = wm.end()
            colon = i
            i = skip_ws(text, colon + 1)
            for _ in range(3):
                i = parse_type(text, i)
                i = skip_ws(text, i)
                if text[i] == ",":
                    i = skip_ws(text, i + 1)
            if not text.startswith("->", i):
                raise ValueError("expected ->")
            i = skip_ws(text, i + 2)
            rstart = i
            i = parse_type(text, i)
            result_types = [text[rstart:i]]
            j = skip_ws(text, i)
            if j < len(text) and text[j] == ",":
                k = skip_ws(text, j + 1)
                if text.startswith("tensor<", k):
                    e = parse_type(text, k)
                    result_types.append(text[k:e])
                    i = e
            end = i
        except StopIteration:
            continue
        except (ValueError, IndexError) as e:
            notes.append("%s:%d: not rewritten: %s" % (path, lineno, e))
            continue
        op_text = text[m.start():end]
        layout_bshd = "layout = bshd" in op_text
        n = counter[0]
        counter[0] += 1
        indent = re.match(r"[ \t]*", text[line_start:]).group(0)
        q, v = operands[0], operands[2]
        lines = []
        consts = {}

        def const(c):
            if c not in consts:
                name = "%%attn_c%d_%d" % (c, n)
                lines.append("%s = arith.constant %d : index" % (name, c))
                consts[c] = name
            return consts[c]

        inits = []
        for r, t in enumerate(result_types):
            dyn = []
            for d, size in enumerate(dims_of(t)):
                if size != "?":
                    continue
                if r == 0:
                    src, axis = (v, 3) if d == 3 else (q, d)
                else:
                    axis = [0, 2, 1][d] if layout_bshd else d
                    src = q
                dname = "%%attn_d%d_%d_%d" % (r, d, n)
                lines.append("%s = tensor.dim %s, %s : %s" %
                             (dname, src, const(axis), operand_type(
                                 text, colon, 0 if src == q else 2)))
                dyn.append(dname)
            name = "%%attn_init%d" % n if r == 0 else "%%attn_lse_init%d" % n
            lines.append("%s = tensor.empty(%s) : %s" % (name, ", ".join(dyn),
                                                         t))
            inits.append(name)
        outs = "outs(%s : %s)" % (", ".join(inits), ", ".join(result_types))
        insert_at = attr_start if attr_start is not None else colon
        # At the start of a continuation line outs takes its indentation;
        # otherwise one space before outs and one after.
        before = text[m.start():insert_at]
        after = text[insert_at:end]
        if before.rstrip(" ").endswith("\n"):
            new_op = before + outs + "\n" + before[len(before.rstrip(" ")):] + after
        else:
            new_op = before.rstrip(" ") + " " + outs + " " + after.lstrip(" ")
        # The new lines go above an expected-* block directly above the op.
        block_start = line_start
        while True:
            prev_end = block_start - 1
            if prev_end < 0:
                break
            prev_start = text.rfind("\n", 0, prev_end) + 1
            prev = text[prev_start:prev_end]
            if re.match(r"\s*//.*expected-\w+@\+\d", prev):
                block_start = prev_start
            else:
                break
        out.append(text[pos:block_start])
        out.append("".join(indent + l + "\n" for l in lines))
        out.append(text[block_start:m.start()])
        out.append(new_op)
        pos = end
        notes.append("%s:%d: rewrote (%s)" % (path, lineno, ", ".join(inits)))
    out.append(text[pos:])
    return "".join(out), notes


def operand_type(text, colon, index):
    """The type of operand `index` (0 query, 2 value) in the type list."""
    i = skip_ws(text, colon + 1)
    for _ in range(index):
        i = parse_type(text, i)
        i = skip_ws(text, i)
        i = skip_ws(text, i + 1)
    return text[i:parse_type(text, i)]


def main():
    for path in sys.argv[1:]:
        with open(path) as f:
            text = f.read()
        new, notes = rewrite(text, path)
        for n in notes:
            print(n)
        if new != text:
            with open(path, "w") as f:
                f.write(new)


if __name__ == "__main__":
    main()
