#!/usr/bin/env python3
"""Checks kgen's pass name chain (style.md, habit 4) for every pass.

    def KgenFooBar : Pass<"kgen-foo-bar" ...>     (any .td of the tree)
      -> FooBar.cpp, which holds GEN_PASS_DEF_KGENFOOBAR (passes/, or
         wherever it lives outside test/, e.g. codegen/emit/)
      -> test/**/foo-bar.mlir, whose RUN lines run kgen-foo-bar
      -> test/**/foo-bar-errors.mlir as well, run the same way, when the pass
         can fail: its source emits an error or signals a failure other than
         a greedy rewrite that did not converge.

Usage: pass-name-chain.py SOURCE_ROOT
Prints one line per pass, "FLAG: DEF SOURCE TEST [ERRORS_TEST]" when its
chain holds and "FLAG: broken: WHAT" for each link that does not, then a
summary; exits 1 when any chain is broken.
"""

import os
import re
import sys

PASS_DEF = re.compile(r'^\s*def\s+(\w+)\s*:\s*Pass<\s*"([^"]+)"', re.M)
# Signals that a pass reports an error of its own.
DIAGNOSTIC = re.compile(r"\bemit(Op)?Error\s*\(")
SIGNAL = re.compile(r"\bsignalPassFailure\s*\(")
# A failure of a greedy rewrite driver (no convergence) is no user error.
GREEDY = re.compile(r"\bapply(Patterns|PatternsAndFold)Greedily\s*\(")


def skipped_dir(root, path, name):
    """Build folders (any folder with a CMakeCache.txt), VCS and hidden
    folders; test/ is searched only for tests."""
    full = os.path.join(path, name)
    return (name.startswith(".") or
            os.path.exists(os.path.join(full, "CMakeCache.txt")) or
            (path == root and name == "test"))


def source_files(root, suffix):
    for path, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not skipped_dir(root, path, d))
        for f in sorted(files):
            if f.endswith(suffix):
                yield os.path.join(path, f)


def test_files(root):
    """Every file under test/ by name (Inputs folders included: a fixture
    tree may live there, but then it is not the tree under check)."""
    tests = {}
    top = os.path.join(root, "test")
    for path, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "Inputs")
        for f in files:
            tests.setdefault(f, []).append(os.path.join(path, f))
    return tests


def strip_comments(cpp):
    cpp = re.sub(r"/\*.*?\*/", "", cpp, flags=re.S)
    return re.sub(r"//[^\n]*", "", cpp)


def can_fail(source):
    """The pass emits an error, or signals a failure that does not come
    from a greedy driver (looked for in the statement before the call)."""
    code = strip_comments(source)
    if DIAGNOSTIC.search(code):
        return True
    for m in SIGNAL.finditer(code):
        before = code[max(0, m.start() - 200):m.start()]
        statement = re.split(r"[;{}]", before)[-1]
        if not GREEDY.search(statement):
            return True
    return False


def runs_pass(test, flag):
    run_lines = [l for l in open(test, encoding="utf-8").read().splitlines()
                 if "RUN:" in l]
    pattern = re.compile(r"(?<!\w)" + re.escape(flag) + r"(?![\w-])")
    return any(pattern.search(l) for l in run_lines)


def camel(flag):
    return "".join(w[:1].upper() + w[1:] for w in flag.split("-"))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = os.path.realpath(sys.argv[1])
    rel = lambda p: os.path.relpath(p, root)

    passes = []
    for td in source_files(root, ".td"):
        for name, flag in PASS_DEF.findall(open(td, encoding="utf-8").read()):
            passes.append((flag, name, td))
    if not passes:
        print(f"no pass definitions found under {root}")
        return 1

    cpps = {}
    for cpp in source_files(root, ".cpp"):
        cpps.setdefault(os.path.basename(cpp), []).append(cpp)
    tests = test_files(root)

    broken = 0
    for flag, name, td in sorted(passes):
        problems = []
        if not flag.startswith("kgen-"):
            problems.append(f"flag {flag} does not start with kgen-")
        stem = flag[len("kgen-"):] if flag.startswith("kgen-") else flag
        base = camel(stem)
        if name != "Kgen" + base:
            problems.append(f"{rel(td)} defines {name}; the flag asks for "
                            f"Kgen{base}")

        source = None
        candidates = cpps.get(base + ".cpp", [])
        marker = "GEN_PASS_DEF_" + ("Kgen" + base).upper()
        defining = [c for c in candidates
                    if marker in open(c, encoding="utf-8").read()]
        if not candidates:
            problems.append(f"no source file {base}.cpp")
        elif len(defining) != 1:
            problems.append(f"{base}.cpp ({', '.join(map(rel, candidates))}) "
                            f"must hold {marker} exactly once in the tree; "
                            f"found in {len(defining)}")
        else:
            source = defining[0]

        def find_test(file):
            found = tests.get(file, [])
            if not found:
                problems.append(f"no test named {file} under test/")
                return None
            running = [t for t in found if runs_pass(t, flag)]
            if not running:
                problems.append(f"{', '.join(map(rel, found))} does not run "
                                f"{flag}")
                return None
            return running[0]

        test = find_test(stem + ".mlir")
        errors = None
        if source and can_fail(open(source, encoding="utf-8").read()):
            errors = find_test(stem + "-errors.mlir")

        if problems:
            broken += 1
            for p in problems:
                print(f"{flag}: broken: {p}")
        else:
            line = f"{flag}: {name} {rel(source)} {rel(test)}"
            if errors:
                line += f" {rel(errors)}"
            print(line)

    print(f"{len(passes)} passes, {broken} with a broken name chain")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
