#!/usr/bin/python3
"""Every code block of README.md and docs/ (every page) runs here as written, or says why it does not.

A marker on the line above each fence says what the block is (docs/testing.md, "Tested docs"):

    <!-- snippet: run -->              sh: bash -e; python: /usr/bin/python3 with rlzoo's module;
                                       cpp: a whole program, built against the installed package
                                       (find_package(rlzoo)) and run
    <!-- snippet: run venv=NAME -->    python, in the test venv NAME (scripts/python-tools)
    <!-- snippet: shown -->            output, a file layout, a format, a fragment of a preset:
                                       nothing to run
    <!-- snippet: skip REASON -->      not run here, and why

The blocks of one page run in order in one scratch folder (links to the build's rlzoo and the
checkout's configs/, examples/, scripts/ and tests/ in it; `rlzoo` on PATH); the python blocks
of a page share one interpreter, as a reader's session would. RLZOO_MAX_TIMESTEPS=1024 caps every
training run they start (a preset's n_timesteps and learn(n) alike), so they stay short.

    doc_snippets.py --source DIR --build DIR --part main        # sh and python blocks
    doc_snippets.py --source DIR --build DIR --part cpp --prefix INSTALL_PREFIX
    doc_snippets.py --source DIR --build DIR --part venv        # python blocks with venv=NAME
    doc_snippets.py --source DIR --list                          # every block and its marker

Exit status 0: every block of the part ran (or is marked not to run); 1: a block failed or
lacks a marker (each named as page:line); 77: the part's venvs or install were not there.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback

# Pages written by `rlzoo docs ...` from the code, and checked against it by DocsTest.
GENERATED = {"docs/cli.md", "docs/presets.md", "docs/capabilities.md"}
MARKER = re.compile(r"^<!-- snippet: (run|shown|skip)(?: (.*?))? -->\s*$")
FENCE = re.compile(r"^```(\w*)\s*$")
MAX_TIMESTEPS = "1024"


class Block:
    def __init__(self, page, line, lang, code, kind, arg):
        self.page, self.line, self.lang, self.code, self.kind, self.arg = page, line, lang, code, kind, arg

    @property
    def where(self):
        return f"{self.page}:{self.line}"

    @property
    def venv(self):
        m = re.match(r"venv=(\S+)", self.arg or "")
        return m.group(1) if m else None


def blocks_of(source, page):
    """The fenced blocks of a page with their markers; errors for blocks without one."""
    lines = open(os.path.join(source, page), encoding="utf-8").read().split("\n")
    blocks, errors, i = [], [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        marker = MARKER.match(lines[start - 1]) if start > 0 else None
        if not marker:
            errors.append(f"{page}:{start + 1}: a ```{lang} block without a snippet marker on the line above "
                          "(<!-- snippet: run|shown|skip REASON -->)")
        else:
            kind, arg = marker.group(1), marker.group(2)
            if kind == "skip" and not arg:
                errors.append(f"{page}:{start + 1}: `snippet: skip` needs its reason")
            if kind == "run" and lang not in ("sh", "python", "cpp"):
                errors.append(f"{page}:{start + 1}: only sh, python and cpp blocks run (this is ```{lang})")
            blocks.append(Block(page, start + 2, lang, "\n".join(lines[start + 1:j]) + "\n", kind, arg))
        i = j + 1
    return blocks, errors


def pages(source):
    found = ["README.md"] + sorted(os.path.relpath(p, source)
                                   for p in glob.glob(os.path.join(source, "docs", "**", "*.md"), recursive=True))
    return [p for p in found if p not in GENERATED]


def scratch_folder(source, build):
    """A folder a reader might stand in: the checkout's folders and the build, as links."""
    d = tempfile.mkdtemp(prefix="rlzoo-doc-snippets-")
    for name in ("configs", "examples", "scripts", "tests", "datasets"):
        if os.path.exists(os.path.join(source, name)):
            os.symlink(os.path.abspath(os.path.join(source, name)), os.path.join(d, name))
    os.symlink(os.path.abspath(build), os.path.join(d, "build"))
    return d


def environment(build):
    env = dict(os.environ)
    env["RLZOO_MAX_TIMESTEPS"] = MAX_TIMESTEPS
    env["PATH"] = os.path.join(os.path.abspath(build), "apps") + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.path.join(os.path.abspath(build), "python")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_sh(block, cwd, env):
    r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.code], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        return f"exit status {r.returncode}\n--- stdout\n{r.stdout[-3000:]}\n--- stderr\n{r.stderr[-3000:]}"
    return None


# One interpreter per page for its python blocks: each block exec'd in the page's namespace.
# The answers go through a copy of stdout; what the blocks print (Python or C++) goes to stderr.
PY_SESSION = r"""
import json, os, sys, traceback
answers = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr
ns = {"__name__": "__main__"}
for line in sys.stdin:
    where, code = json.loads(line)
    try:
        exec(compile(code, where, "exec"), ns)
        answers.write(json.dumps(None) + "\n")
    except BaseException:
        answers.write(json.dumps(traceback.format_exc()[-3000:]) + "\n")
    answers.flush()
"""


class PythonSession:
    def __init__(self, python, cwd, env):
        self.p = subprocess.Popen([python, "-u", "-c", PY_SESSION], cwd=cwd, env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)

    def run(self, block):
        import json
        self.p.stdin.write(json.dumps([block.where, block.code]) + "\n")
        self.p.stdin.flush()
        answer = self.p.stdout.readline()
        if not answer:
            return "the interpreter exited"
        return json.loads(answer)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def run_cpp(blocks, cwd, env, prefix, build):
    """Each block a program of its own, in one CMake project against the installed package."""
    if not blocks:
        return {}
    project = os.path.join(cwd, "cpp")
    os.makedirs(project)
    names = []
    cmake = ["cmake_minimum_required(VERSION 3.25)", "project(doc_snippets CXX)", "find_package(rlzoo REQUIRED)"]
    for k, b in enumerate(blocks):
        name = f"snippet_{k}"
        names.append(name)
        with open(os.path.join(project, name + ".cpp"), "w") as f:
            f.write(f"#line {b.line} \"{b.page}\"\n" + b.code)
        cmake.append(f"add_executable({name} {name}.cpp)")
        cmake.append(f"target_link_libraries({name} PRIVATE rlzoo::rlzoo)")
    with open(os.path.join(project, "CMakeLists.txt"), "w") as f:
        f.write("\n".join(cmake) + "\n")
    configure = ["cmake", "-S", project, "-B", os.path.join(project, "build"), "-G", "Ninja",
                 "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={prefix}"]
    if shutil.which("ccache"):
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    r = subprocess.run(configure, capture_output=True, text=True)
    if r.returncode != 0:
        return {b.where: "configuring against the install failed:\n" + r.stdout[-2000:] + r.stderr[-2000:]
                for b in blocks}
    failures = {}
    # All at once (in parallel); where that fails, each alone, to name the block that does not compile.
    together = subprocess.run(["cmake", "--build", os.path.join(project, "build")], capture_output=True, text=True,
                              env=dict(env, CCACHE_BASEDIR=project))
    for name, b in zip(names, blocks):
        if together.returncode != 0:
            r = subprocess.run(["cmake", "--build", os.path.join(project, "build"), "--target", name],
                               capture_output=True, text=True, env=dict(env, CCACHE_BASEDIR=project))
            if r.returncode != 0:
                failures[b.where] = "does not compile:\n" + r.stdout[-3000:]
                continue
        r = subprocess.run([os.path.join(project, "build", name)], cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=600)
        if r.returncode != 0:
            failures[b.where] = f"exit status {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", required=True)
    ap.add_argument("--build")
    ap.add_argument("--part", choices=["main", "cpp", "venv"], default="main")
    ap.add_argument("--prefix", help="the installed package (cpp)")
    ap.add_argument("--venvs", help="where scripts/python-tools made the venvs (default BUILD/python-tools)")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()

    all_blocks, errors = [], []
    for page in pages(args.source):
        b, e = blocks_of(args.source, page)
        all_blocks += b
        errors += e
    if args.list:
        for b in all_blocks:
            print(f"{b.where:32} {b.lang or '-':7} {b.kind} {b.arg or ''}")
        print(f"{len(all_blocks)} blocks; {len(errors)} without a usable marker")
        for e in errors:
            print(e)
        return 1 if errors else 0
    if errors and args.part == "main":  # reported once, by the main part
        for e in errors:
            print("FAIL " + e)
        return 1

    env = environment(args.build)
    failures, ran, missing = {}, 0, []
    by_page = {}
    for b in all_blocks:
        by_page.setdefault(b.page, []).append(b)
    for page, blocks in by_page.items():
        if args.part == "main":
            chosen = [b for b in blocks if b.kind == "run" and b.lang in ("sh", "python") and not b.venv]
        elif args.part == "venv":
            chosen = [b for b in blocks if b.kind == "run" and b.lang == "python" and b.venv]
        else:
            chosen = [b for b in blocks if b.kind == "run" and b.lang == "cpp"]
        if not chosen:
            continue
        cwd = scratch_folder(args.source, args.build)
        if args.part == "cpp":
            if not args.prefix or not os.path.exists(os.path.join(args.prefix, "lib", "cmake", "rlzoo")):
                missing.append(f"no installed package at {args.prefix}")
                continue
            failures.update(run_cpp(chosen, cwd, env, os.path.abspath(args.prefix), args.build))
            ran += len(chosen)
            for b in chosen:
                print(("FAIL " if b.where in failures else "ok   ") + b.where, flush=True)
            continue
        sessions = {}
        for b in chosen:
            started = time.monotonic()
            if b.lang == "sh":
                why = run_sh(b, cwd, env)
            else:
                python = "/usr/bin/python3"
                if b.venv:
                    venv = os.path.join(args.venvs or os.path.join(args.build, "python-tools"), b.venv)
                    if not os.path.exists(os.path.join(venv, ".rlzoo-stamp")):
                        missing.append(f"{b.where}: no venv {venv} (scripts/python-tools makes it)")
                        continue
                    python = os.path.join(venv, "bin", "python")
                if python not in sessions:
                    sessions[python] = PythonSession(python, cwd, env)
                why = sessions[python].run(b)
            ran += 1
            print(("FAIL " if why else "ok   ") + f"{b.where} ({time.monotonic() - started:.1f} s)", flush=True)
            if why:
                failures[b.where] = why
        for s in sessions.values():
            s.close()
    for where, why in failures.items():
        print(f"\n=== {where} failed:\n{textwrap.indent(why.rstrip(), '  ')}")
    for m in missing:
        print("SKIP " + m)
    print(f"\n{ran} blocks ran, {len(failures)} failed; {len(missing)} could not run here")
    if failures:
        return 1
    return 77 if missing and ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
