# gen_limits.py OUTDIR - writes the hostile inputs of limits.test: deep
# nesting, very long lines, huge literals, thousands of kernels.
import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
PRE = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(X, n):\n"


def write(name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


write("parens.tile", PRE + "    x = " + "(" * 5000 + "n" + ")" * 5000 + "\n")
write("unary.tile", PRE + "    x = " + "-" * 100000 + "n\n")
write("chain.tile", PRE + "    x = n" + " + n" * 100000 + "\n")
write("blocks.tile", PRE + "".join("    " * (i + 1) + f"if n > {i}:\n" for i in range(300)) + "    " * 301 + "pass\n")
# A 4 MB comment line and a 1 MB string constant: fine.
write("longline.tile", PRE + "    # " + "c" * 4000000 + "\n    s = '" + "a" * 1000000 + "'\n    tl.store(X, n)\n")
write("hugeint.tile", PRE + "    x = " + "9" * 100000 + "\n")
write("hugefloat.tile", PRE + "    x = 1." + "9" * 100000 + "e99999999999\n    tl.store(X, n + x)\n")
many = "import triton\nimport triton.language as tl\n\n"
for i in range(5000):
    many += (f"@triton.jit\ndef k{i}(X, n, BLOCK: tl.constexpr):\n    offs = tl.arange(0, BLOCK)\n"
             f"    tl.store(X + offs, offs + {i}, mask=offs < n)\n\n")
write("many.tile", many)
# Sema: unrolling, the statement budget, inlining depth.
write("unroll.tile", PRE + "    acc = 0\n    for i in tl.static_range(100000000):\n        acc += n\n    tl.store(X, acc)\n")
write("budget.tile", PRE + "    acc = 0\n    for i in tl.static_range(1000):\n        for j in tl.static_range(1000):\n"
      "            for l in tl.static_range(1000):\n                acc += n\n    tl.store(X, acc)\n")
calls = "import triton\nimport triton.language as tl\n\n"
for i in range(400):
    calls += f"@triton.jit\ndef h{i}(x):\n    return h{i + 1}(x) + 1\n\n"
calls += "@triton.jit\ndef h400(x):\n    return x\n\n@triton.jit\ndef k(X, n):\n    tl.store(X, h0(n))\n"
write("inline.tile", calls)
