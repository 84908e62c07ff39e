// HostEvalTests.cpp - small host programs evaluated end to end: Python
// semantics, builtins, printing, assert_close, and located errors.
#include "HostTestUtil.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>

using namespace tile;
using namespace hosttest;

TEST_CASE("scalar arithmetic follows Python") {
  RunResult r = runHost("def main():\n"
                        "    print(7 // 2, -7 // 2, -7 % 3, 7 % -3, 7 / 2, 2 ** 10, 2 ** -1)\n"
                        "    print(1.5, 'x', True, None, 3 * 1.0, 10 / 5, -7.5 // 2, 1e-5, 1 + True)\n");
  CHECK(r.error == "");
  CHECK(r.out == "3 -4 2 -2 3.5 1024 0.5\n1.5 x True None 3.0 2.0 -4.0 1e-05 2\n");
}

TEST_CASE("containers, strings and comparisons") {
  RunResult r = runHost("def main():\n"
                        "    t = (1, 2, 3)\n"
                        "    l = [1, 'a', 2.5]\n"
                        "    l.append((4,))\n"
                        "    d = {'BLOCK': 16, 'n': 3}\n"
                        "    d['n'] = 4\n"
                        "    print(t, l, d, len(l), t[-1], t[1:], d['n'])\n"
                        "    print(1 < 2 < 3, 3 < 2 < 5, 2 in t, 'BLOCK' in d, None is None, 'a' + 'b' * 2)\n"
                        "    print(max(3, 9, 2), min([4, 1, 7]), sum(range(5)), abs(-3), int('12'), float(2))\n"
                        "    print(1 and 0, 0 or 'x', not 0, 5 if t else 6)\n");
  CHECK(r.error == "");
  CHECK(r.out == "(1, 2, 3) [1, 'a', 2.5, (4,)] {'BLOCK': 16, 'n': 4} 4 3 (2, 3) 4\n"
                 "True False True True True abb\n"
                 "9 1 10 3 12 2.0\n"
                 "0 x True 5\n");
}

TEST_CASE("control flow, functions, defaults, keywords, recursion, lambdas") {
  RunResult r = runHost("def fact(n):\n"
                        "    return 1 if n <= 1 else n * fact(n - 1)\n"
                        "def scale(x, factor=2, offset=0):\n"
                        "    return x * factor + offset\n"
                        "def main():\n"
                        "    total = 0\n"
                        "    for i in range(10):\n"
                        "        if i == 7:\n"
                        "            break\n"
                        "        elif i % 2 == 0:\n"
                        "            continue\n"
                        "        total += i\n"
                        "    n = 0\n"
                        "    while n < 100:\n"
                        "        n = n * 2 + 1\n"
                        "    a, (b, c) = 1, (2, 3)\n"
                        "    k = 5\n"
                        "    f = lambda m: m['x'] + k\n"
                        "    print(total, n, fact(10), scale(3), scale(3, offset=1), scale(x=1, factor=5), a + b + c, f({'x': 1}))\n");
  CHECK(r.error == "");
  CHECK(r.out == "9 127 3628800 6 7 5 6 6\n");
}

TEST_CASE("comprehensions, zip, enumerate, sorted, any, all") {
  RunResult r = runHost("SIZES = [s * 64 for s in (1, 2, 4) if s != 2]\n"
                        "def main():\n"
                        "    i = 99\n"
                        "    sq = [i * i for i in range(6) if i % 2 == 0]\n"
                        "    d = {k: v for k, v in zip(['a', 'b', 'a'], [1, 2, 3])}\n"
                        "    pairs = [(a, b) for a in range(3) for b in range(a)]\n"
                        "    print(SIZES, sq, i, d, pairs)\n"
                        "    print(sum(x for x in range(5)), max((x * 2 for x in (3, 1, 2))), tuple(c for c in 'ab'))\n"
                        "    print(list(enumerate('xy', start=1)), sorted([3, 1, 2]), sorted((2.5, 1), reverse=True))\n"
                        "    print(list(reversed(range(3))), any(x > 2 for x in [1, 3]), all([]), any([]), all([1, 0]))\n"
                        "    print(any(zeros((3,))), all(ones((2, 2))), list(zip([1, 2, 3], 'ab')))\n"
                        "    grid = [[r * 2 + c for c in range(2)] for r in range(2)]\n"
                        "    print(grid, [x for x in []])\n");
  CHECK(r.error == "");
  CHECK(r.out == "[64, 256] [0, 4, 16] 99 {'a': 3, 'b': 2} [(1, 0), (2, 0), (2, 1)]\n"
                 "10 6 ('a', 'b')\n"
                 "[(1, 'x'), (2, 'y')] [1, 2, 3] [2.5, 1]\n"
                 "[2, 1, 0] True True False False\n"
                 "False True [(1, 'a'), (2, 'b')]\n"
                 "[[0, 1], [2, 3]] []\n");
}

TEST_CASE("list and dict methods") {
  RunResult r = runHost("def main():\n"
                        "    a = [3, 1, 2]\n"
                        "    a.extend((5, 6))\n"
                        "    a.insert(0, 9)\n"
                        "    a.insert(-1, 7)\n"
                        "    print(a, a.pop(), a.pop(0), a.pop(-2), a, a.index(2), a.count(1))\n"
                        "    a.remove(1)\n"
                        "    b = a.copy()\n"
                        "    b.reverse()\n"
                        "    a.clear()\n"
                        "    print(a, b)\n"
                        "    d = {'x': 1}\n"
                        "    d.update({'y': 2, 'x': 3})\n"
                        "    e = d.copy()\n"
                        "    print(d.setdefault('z', 4), d.setdefault('x', 0), d.pop('y'), d.pop('q', 5), d, e)\n"
                        "    d.clear()\n"
                        "    print(d)\n");
  CHECK(r.error == "");
  CHECK(r.out == "[3, 1, 2, 7] 6 9 5 [3, 1, 2, 7] 2 1\n"
                 "[] [7, 2, 3]\n"
                 "4 3 2 5 {'x': 3, 'z': 4} {'x': 3, 'y': 2}\n"
                 "{}\n");
  CHECK(runHost("def main():\n    a = [1]\n    a.pop(3)\n").error.find("pop(): index out of range") !=
        std::string::npos);
  CHECK(runHost("def main():\n    d = {}\n    d.pop('k')\n").error.find("dict.pop(): key 'k' not found") !=
        std::string::npos);
}

TEST_CASE("try, except, else, finally, raise") {
  RunResult r = runHost("def f(x):\n"
                        "    try:\n"
                        "        return x / 2\n"
                        "    finally:\n"
                        "        print('finally in f')\n"
                        "def g():\n"
                        "    for i in range(5):\n"
                        "        try:\n"
                        "            if i == 1:\n"
                        "                continue\n"
                        "            if i == 2:\n"
                        "                break\n"
                        "        finally:\n"
                        "            print('fin', i)\n"
                        "    return i\n"
                        "def main():\n"
                        "    try:\n"
                        "        raise ValueError('bad value')\n"
                        "    except (KeyError, ValueError) as e:\n"
                        "        print('caught', e)\n"
                        "    try:\n"
                        "        assert 1 == 2, 'nope'\n"
                        "    except AssertionError as e:\n"
                        "        print('assert:', e)\n"
                        "    try:\n"
                        "        x = [1][5]\n"
                        "    except IndexError as e:\n"
                        "        print('generic')\n"
                        "    try:\n"
                        "        x = {'a': 1}['b'] + 1 // 0\n"
                        "    except ZeroDivisionError:\n"
                        "        print('wrong')\n"
                        "    except KeyError:\n"
                        "        print('key')\n"
                        "    try:\n"
                        "        pass\n"
                        "    except ValueError:\n"
                        "        print('never')\n"
                        "    else:\n"
                        "        print('else ran')\n"
                        "    print(f(3), g())\n"
                        "    try:\n"
                        "        try:\n"
                        "            raise KeyError('k')\n"
                        "        except ValueError:\n"
                        "            print('wrong')\n"
                        "        finally:\n"
                        "            print('inner finally')\n"
                        "    except LookupError as e:\n"
                        "        print('outer', e)\n"
                        "    try:\n"
                        "        try:\n"
                        "            raise TypeError('t')\n"
                        "        except TypeError as e:\n"
                        "            raise\n"
                        "    except TypeError as e:\n"
                        "        print('reraised', e)\n"
                        "    try:\n"
                        "        raise RuntimeError('r')\n"
                        "    except:\n"
                        "        print('bare')\n"
                        "    raise ValueError('uncaught')\n");
  CHECK(r.out == "caught bad value\nassert: nope\ngeneric\nkey\nelse ran\nfinally in f\nfin 0\nfin 1\nfin 2\n1.5 2\n"
                 "inner finally\nouter k\nreraised t\nbare\n");
  CHECK(r.error.find("ValueError: uncaught") != std::string::npos);
  // finally runs once, also when the handler or else raises and finally returns
  RunResult once = runHost("def f(k):\n"
                           "    try:\n"
                           "        if k == 0:\n"
                           "            raise KeyError('a')\n"
                           "    except KeyError:\n"
                           "        raise ValueError('b')\n"
                           "    else:\n"
                           "        raise ValueError('c')\n"
                           "    finally:\n"
                           "        print('finally', k)\n"
                           "        return k\n"
                           "def main():\n"
                           "    print(f(0), f(1))\n");
  CHECK(once.error == "");
  CHECK(once.out == "finally 0\nfinally 1\n0 1\n");
  // an unmatched handler lets the error through; a kernel-side try is an error
  CHECK(runHost("def main():\n    try:\n        raise KeyError('x')\n    except ValueError:\n        pass\n")
            .error.find("KeyError: x") != std::string::npos);
  CHECK(runHost("def main():\n    try:\n        x = 1\n    print(x)\n").error.find("'try' needs an 'except' or a "
                                                                             "'finally' clause") != std::string::npos);
}

TEST_CASE("ellipsis in tensor indexing") {
  RunResult r = runHost("def main():\n"
                        "    x = arange(24).reshape((2, 3, 4))\n"
                        "    print(x[..., 0].shape, x[0, ...].shape, x[..., None].shape, x[1, ..., 2].tolist(), x[...].shape)\n"
                        "    x[..., 1] = 7\n"
                        "    print(x[0].tolist(), ...)\n");
  CHECK(r.error == "");
  CHECK(r.out == "(2, 3) (3, 4) (2, 3, 4, 1) [14, 18, 22] (2, 3, 4)\n[[0, 7, 2, 3], [4, 7, 6, 7], [8, 7, 10, 11]] Ellipsis\n");
  CHECK(runHost("def main():\n    x = zeros((2, 2))\n    print(x[..., ...])\n").error.find("a single ellipsis") !=
        std::string::npos);
}

TEST_CASE("layer_norm and rms_norm on the host") {
  RunResult r = runHost("import torch.nn.functional as F\n"
                        "def main():\n"
                        "    x = tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0]], dtype=float64)\n"
                        "    y = F.layer_norm(x, (4,), eps=0.0)\n"
                        "    z = F.layer_norm(x, [4], ones((4,), float64) * 2, ones((4,), float64), 0.0)\n"
                        "    r = F.rms_norm(tensor([3.0, 4.0], dtype=float64), (2,))\n"
                        "    print(round(y[0, 0].item() * 1e6), round(y[1, 3].item() * 1e6), round(z[0, 0].item() * 1e6))\n"
                        "    print(round(r[0].item() * 1e6), round(r[1].item() * 1e6))\n");
  CHECK(r.error == "");
  // (1 - 2.5) / sqrt(1.25) = -1.341641; 2 * that + 1 = -1.683282; 3 / sqrt(12.5) = 0.848528
  CHECK(r.out == "-1341641 1341641 -1683282\n848528 1131371\n");
  CHECK(runHost("import torch.nn.functional as F\ndef main():\n    F.layer_norm(zeros((2, 3)), (4,))\n")
            .error.find("is not the input's trailing shape") != std::string::npos);
}

TEST_CASE("f-strings, str.format, string methods") {
  RunResult r = runHost("def main():\n"
                        "    x = 3.14159\n"
                        "    n = 42\n"
                        "    s = 'tile'\n"
                        "    print(f'a {1 + 2} {x:.2f} {n:5d}|{n:<5}|{s!r} {{b}} {x:e} {n:.1f} {0.25:.1%}')\n"
                        "    print(f'{s:>6}|{[i for i in range(2)]}|{ {1: 2}[1] }|{ones((1,)) * 2.5:.1f}')\n"
                        "    print('{} and {:.1f} {k!r} {0}'.format(1, 2.0, k='x'), '-'.join(['a', 'b']), 'Ab'.upper())\n");
  CHECK(r.error == "");
  CHECK(r.out == "a 3 3.14    42|42   |'tile' {b} 3.141590e+00 42.0 25.0%\n"
                 "  tile|[0, 1]|2|2.5\n"
                 "1 and 2.0 'x' 1 a-b AB\n");
  r = runHost("def main():\n"
              "    print('%d items, %.2f ms, %s' % (3, 1.2345, 'ok'), '%5.1f%%' % 12.34)\n"
              "    print('%-6s|%06.2f|%+d|%x|%s|%r' % ('ab', 3.14159, 5, 255, [1, 2], 'q'))\n");
  CHECK(r.error == "");
  CHECK(r.out == "3 items, 1.23 ms, ok  12.3%\nab    |003.14|+5|ff|[1, 2]|'q'\n");
  r = runHost("def main():\n    print('%d %d' % (1,))\n");
  CHECK(r.error == "% format: not enough arguments for format string");
  r = runHost("def main():\n    print(f'{1:q}')\n");
  CHECK(r.error == "invalid format spec 'q' for a 'int': invalid type specifier");
  r = runHost("def main():\n    print(f'{zz}')\n");
  CHECK(r.error == "unknown name 'zz'");
  CHECK(r.errLoc.col == 14);   // inside the literal
}

TEST_CASE("tensor slicing gives views; raise ends the run") {
  RunResult r = runHost("def main():\n"
                        "    x = arange(12).reshape((3, 4))\n"
                        "    print(x[1:, ::2].tolist() if False else x[1:, ::2])\n"
                        "    print(x[:, 1], x[-1, 1:3], x[None, 0].shape, x[:, None].shape, x[1:1].shape)\n"
                        "    y = zeros((2, 3))\n"
                        "    y[:, 1:] = 1.0\n"
                        "    v = y[1]\n"
                        "    v[0] = 7.0\n"
                        "    print(y, y.mean(), y.mean(axis=0), 'abcdef'[1:4], 'abcdef'[::-2])\n");
  CHECK(r.error == "");
  CHECK(r.out == "[[ 4  6]\n [ 8 10]]\n"
                 "[1 5 9] [ 9 10] (1, 4) (3, 1, 4) (0, 4)\n"
                 "[[0. 1. 1.]\n [7. 1. 1.]] 1.8333334 [3.5 1.  1. ] bcd fdb\n");
  r = runHost("def main():\n    x = zeros((3,))\n    print(x[::-1])\n");
  CHECK(r.error == "a tensor slice's step must be positive (as torch's)");
  r = runHost("def check(n):\n"
              "    if n % 16:\n"
              "        raise ValueError(f'n={n} is not a multiple of 16')\n"
              "def main():\n"
              "    check(32)\n"
              "    check(40)\n");
  CHECK(r.error == "ValueError: n=40 is not a multiple of 16");
  CHECK(r.errLoc.line == 3);
  CHECK(r.errLoc.col == 9);
}

TEST_CASE("reference math a Triton user writes: torch, F, argmax, max(dim=), permute, tolist") {
  RunResult r = runHost("import torch\n"
                        "import torch.nn.functional as F\n"
                        "def main():\n"
                        "    x = tensor([[1.0, 5.0, 3.0], [7.0, 2.0, 7.0]])\n"
                        "    print(x.argmax(axis=1), x.argmin(), x.argmax(dim=0, keepdim=True))\n"
                        "    v, i = x.max(dim=1)\n"
                        "    print(v, i, x.max(axis=1), x.min(dim=0)[1])\n"
                        "    print(x.permute(1, 0).tolist(), x.flatten(), (x > 4).any(), (x > 0).all())\n"
                        "    print(torch.tanh(tensor([0.5], dtype=float64)), F.gelu(tensor([1.0], dtype=float64)), "
                        "F.relu(tensor([-1.0, 2.0])))\n"
                        "    print(torch.softmax(tensor([1.0, 2.0, 3.0], dtype=float64), dim=0), "
                        "F.log_softmax(tensor([[1.0, 1.0]], dtype=float64), dim=-1))\n"
                        "    print(zeros((2,), float16).dtype, ones((1, 2), int32))\n");
  CHECK(r.error == "");
  CHECK(r.out == "[1 0] 0 [[1 0 1]]\n"
                 "[5. 7.] [1 0] [5. 7.] [0 1 0]\n"
                 "[[1.0, 7.0], [5.0, 2.0], [3.0, 7.0]] [1. 5. 3. 7. 2. 7.] True True\n"
                 "[0.46211716] [0.84134475] [0. 2.]\n"
                 "[0.09003057 0.24472847 0.66524096] [[-0.69314718 -0.69314718]]\n"
                 "float16 [[1 1]]\n");
}

TEST_CASE("with runs its body for context managers that change nothing") {
  RunResult r = runHost("import torch\n"
                        "def main():\n"
                        "    with torch.no_grad():\n"
                        "        x = 1\n"
                        "    with torch.cuda.device(0) as d:\n"
                        "        print(x, d)\n");
  CHECK(r.error == "");
  CHECK(r.out == "1 None\n");
  r = runHost("def main():\n    with 3:\n        pass\n");
  CHECK(r.error.find("'with' of a 'int' is not supported in host code") == 0);
  CHECK(r.errLoc.col == 10);
}

TEST_CASE("isinstance and dict()") {
  RunResult r = runHost("import torch\n"
                        "def main():\n"
                        "    print(isinstance(3, int), isinstance(True, int), isinstance(3, float), "
                        "isinstance('a', (int, str)), isinstance(zeros((1,)), torch.Tensor), isinstance([1], tuple))\n"
                        "    print(dict(a=1, b=2), dict([('x', 1)]), dict(), isinstance({}, dict), dict({'k': 3}, k=4))\n");
  CHECK(r.error == "");
  CHECK(r.out == "True True False True True False\n{'a': 1, 'b': 2} {'x': 1} {} True {'k': 4}\n");
  r = runHost("def main():\n    print(isinstance(1, print))\n");
  CHECK(r.error.find("isinstance() of 'print' is not supported") == 0);
}

TEST_CASE("comprehension errors are located") {
  RunResult r = runHost("def main():\n"
                        "    x = [y for y in 5]\n");
  CHECK(r.error == "'int' object is not iterable");
  CHECK(r.errLoc.line == 2);
  CHECK(r.errLoc.col == 21);
  r = runHost("def main():\n"
              "    x = [y for y in range(3)]\n"
              "    print(y)\n");
  CHECK(r.error == "unknown name 'y'");   // the loop variable does not leak
  CHECK(r.errLoc.line == 3);
  r = runHost("def main():\n"
              "    print(sorted([1, 'a']))\n");
  CHECK(r.error.find("'<' not supported") != std::string::npos);
}

TEST_CASE("module constants, globals and -D overrides") {
  std::string src = "BLOCK = 16\n"
                    "COUNT = 0\n"
                    "def bump():\n"
                    "    global COUNT\n"
                    "    COUNT += 1\n"
                    "def main():\n"
                    "    bump()\n"
                    "    bump()\n"
                    "    print(BLOCK, COUNT)\n";
  CHECK(runHost(src).out == "16 2\n");
  host::HostOptions opts;
  opts.defines["BLOCK"] = int64_t(64);
  CHECK(runHost(src, opts).out == "64 2\n");
}

TEST_CASE("main's int return value is the exit status") {
  CHECK(runHost("def main():\n    return 3\n").status == 3);
  CHECK(runHost("def main():\n    pass\n").status == 0);
  CHECK(runHost("def main():\n    print('a')\nif __name__ == '__main__':\n    main()\n").out == "a\n");
}

TEST_CASE("tensors in host code") {
  RunResult r = runHost("import torch\n"
                        "def main():\n"
                        "    a = torch.arange(0, 6, dtype=torch.float32).reshape(2, 3)\n"
                        "    print(a)\n"
                        "    print(a.shape, a.stride(0), a.T.stride(0), a.dtype, a.numel())\n"
                        "    b = a @ a.T\n"
                        "    print(b)\n"
                        "    print(a.sum(axis=1), a.max(), (a > 2).sum())\n"
                        "    c = torch.zeros((2, 3), dtype=torch.int32, device='cuda')\n"
                        "    c += 1\n"
                        "    print(c * 3 // 2, c.dtype, (c / 2).dtype)\n"
                        "    print(torch.full((2,), 7), torch.ones(2, dtype=torch.float16) * 0.5)\n"
                        "    x = torch.tensor([[1.0, -2.0]])\n"
                        "    print(abs(x), torch.maximum(x, 0), torch.where(x > 0, x, 0.0), x[0, 1])\n");
  CHECK(r.error == "");
  CHECK(r.out == "[[0. 1. 2.]\n [3. 4. 5.]]\n"
                 "(2, 3) 3 1 float32 6\n"
                 "[[ 5. 14.]\n [14. 50.]]\n"
                 "[ 3. 12.] 5.0 3\n"
                 "[[1 1 1]\n [1 1 1]] int32 float32\n"
                 "[7 7] [0.5 0.5]\n"
                 "[[1. 2.]] [[1. 0.]] [[1. 0.]] -2.0\n");
}

TEST_CASE("random tensors are seeded and deterministic") {
  std::string src = "def main():\n"
                    "    torch.manual_seed(3)\n"
                    "    a = torch.rand(4)\n"
                    "    seed(3)\n"
                    "    b = torch.rand((4,))\n"
                    "    assert_close(a, b, rtol=0, atol=0)\n"
                    "    print(a.min() >= 0, a.max() < 1, torch.randn(2, 2).shape)\n";
  RunResult r = runHost(src);
  CHECK(r.error == "");
  CHECK(r.out == "True True (2, 2)\n");
}

TEST_CASE("assert_close passes within tolerance") {
  RunResult r = runHost("def main():\n"
                        "    a = torch.ones(3)\n"
                        "    assert_close(a + 1e-7, a)\n"
                        "    assert_close(a * 1.001, a, rtol=1e-2)\n"
                        "    assert_close(a, 1.0)\n"
                        "    print(torch.allclose(a, a * 2))\n");
  CHECK(r.error == "");
  CHECK(r.out == "False\n");
}

TEST_CASE("assert_close takes one-element tensors as tolerances") {
  // a tolerance computed from data (a 0-d tensor) is a number, as in Python;
  // anything else is a located error, not an internal one
  RunResult r = runHost("def main():\n"
                        "    a = torch.ones(3)\n"
                        "    t = a.max() * 0.01\n"
                        "    assert_close(a * 1.005, a, rtol=0, atol=t)\n"
                        "    print(torch.allclose(a * 1.005, a, rtol=t, atol=0))\n"
                        "    assert_close(a, a, atol=a)\n");
  CHECK(r.out == "True\n");
  CHECK(r.error.find("atol must be a number, not 'tensor'") != std::string::npos);
  CHECK(r.error.find("internal") == std::string::npos);
}

TEST_CASE("assert_close failure lists the mismatches") {
  RunResult r = runHost("def main():\n"
                        "    a = torch.zeros((4, 4))\n"
                        "    b = torch.zeros((4, 4))\n"
                        "    a[1, 2] = 0.5\n"
                        "    a[3, 0] = -2.0\n"
                        "    triton.testing.assert_close(a, b)\n");
  CHECK(r.status == 1);
  CHECK(r.errLoc.line == 6);
  CHECK(r.error == "assert_close failed: 2 of 16 elements are not close (rtol=1e-05, atol=1e-08):\n"
                   "  at [3, 0]: actual -2.0, expected 0.0 (difference 2.0)\n"
                   "  at [1, 2]: actual 0.5, expected 0.0 (difference 0.5)");
  RunResult many = runHost("def main():\n    assert_close(torch.arange(10), torch.zeros(10))\n");
  CHECK(many.error.find("9 of 10 elements are not close") != std::string::npos);
  CHECK(many.error.find("the worst 5:") != std::string::npos);
  CHECK(many.error.find("at [9]: actual 9, expected 0.0 (difference 9.0)") != std::string::npos);
  CHECK(many.error.find("at [4]") == std::string::npos);
  RunResult shape = runHost("def main():\n    assert_close(torch.zeros(3), torch.zeros((3, 1)))\n");
  CHECK(shape.error == "assert_close: shape mismatch: actual is float32[3] but expected is float32[3, 1]");
}

TEST_CASE("failed assert is located at the assert") {
  RunResult r = runHost("def main():\n    x = 3\n    assert x == 3\n    assert x > 5, 'x too small: ' + str(x)\n");
  CHECK(r.status == 1);
  CHECK(r.error == "assertion failed: x too small: 3");
  CHECK(r.errLoc.line == 4);
  CHECK(r.errLoc.col == 5);
}

TEST_CASE("errors are located and actionable") {
  RunResult r = runHost("def main():\n    y = 1\n    print(y + zz)\n");
  CHECK(r.error == "unknown name 'zz'");
  CHECK(r.errLoc.line == 3);
  CHECK(r.errLoc.col == 15);

  r = runHost("def f(a, b):\n    return a\ndef main():\n    f(1, 2, 3)\n");
  CHECK(r.error == "f() takes 2 positional arguments but 3 were given");
  CHECK(r.errLoc.line == 4);

  r = runHost("def f(a, b):\n    return a\ndef main():\n    f(1)\n");
  CHECK(r.error == "f() missing required argument 'b'");

  r = runHost("def f(a):\n    return a\ndef main():\n    f(1, c=2)\n");
  CHECK(r.error == "f() got an unexpected keyword argument 'c'");

  r = runHost("def main():\n    t = torch.zeros(3)\n    u = t + 'a'\n");
  CHECK(r.error == "unsupported operand types for +: 'tensor' and 'str'");
  CHECK(r.errLoc.line == 3);
  CHECK(r.errLoc.col == 11);

  r = runHost("def main():\n    t = torch.zeros((2, 3)) * torch.ones(2)\n");
  CHECK(r.error == "shapes [2, 3] and [2] cannot be broadcast together (axis 1: 3 vs 2)");
  CHECK(r.errLoc.line == 2);

  r = runHost("def main():\n    t = (1, 2)\n    print(t[2])\n");
  CHECK(r.error == "tuple index out of range (index 2, length 2)");
  CHECK(r.errLoc.line == 3);

  r = runHost("def main():\n    d = {'a': 1}\n    print(d['b'])\n");
  CHECK(r.error == "key 'b' not found in dict (keys: 'a')");

  r = runHost("def main():\n    print(1 // 0)\n");
  CHECK(r.error == "integer division or modulo by zero");

  r = runHost("def main():\n    torch.zeros(3).frobnicate()\n");
  CHECK(r.error == "tensor has no attribute 'frobnicate'");

  r = runHost("def main():\n    torch.fancy_op(3)\n");
  CHECK(r.error == "'torch.fancy_op' is not supported in host code (docs/language.md, \"Host code\", lists what is)");

  r = runHost("def main():\n    if torch.ones(3):\n        pass\n");
  CHECK(r.error.find("the truth value of a tensor with 3 elements is ambiguous") == 0);

  r = runHost("def main():\n    print(torch.zeros(2, dtype=5))\n");
  CHECK(r.error == "dtype must be a dtype such as float32, not 5");

  r = runHost("import os\ndef main():\n    pass\n");
  CHECK(r.error.find("cannot import 'os' in host code") == 0);
  CHECK(r.errLoc.line == 1);
}

TEST_CASE("unbounded recursion is an error, not a crash") {
  RunResult r = runHost("def f(n):\n    return f(n + 1)\ndef main():\n    f(0)\n");
  CHECK(r.status == 1);
  CHECK(r.error.find("maximum host call depth (200) exceeded calling f()") == 0);
  CHECK(r.errLoc.line == 2);
}

TEST_CASE("no main is an error") {
  RunResult r = runHost("X = 1\n");
  CHECK(r.error == "no main() in test.tile: nothing to run");
}

TEST_CASE("interrupt flag stops an infinite loop") {
  std::atomic<bool> stop{true};
  host::HostOptions opts;
  opts.interrupt = &stop;
  RunResult r = runHost("def main():\n    while True:\n        pass\n", opts);
  CHECK(r.error == "interrupted");
}

TEST_CASE("npy save and load from host code") {
  auto path = (std::filesystem::temp_directory_path() / "tile_host_eval_test.npy").string();
  RunResult r = runHost("def main():\n"
                        "    a = torch.arange(6, dtype=torch.int16).reshape((2, 3))\n"
                        "    np.save(PATH, a)\n"
                        "    b = np.load(PATH)\n"
                        "    print(b, b.dtype)\n"
                        "    load('/no/such/file.npy')\n",
                        [&] {
                          host::HostOptions o;
                          o.defines["PATH"] = path;
                          return o;
                        }());
  CHECK(r.out == "[[0 1 2]\n [3 4 5]] int16\n");
  CHECK(r.error == "cannot read '/no/such/file.npy': No such file or directory");
  CHECK(r.errLoc.line == 6);
  std::remove(path.c_str());
}
