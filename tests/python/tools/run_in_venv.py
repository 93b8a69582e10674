"""Runs one of these test modules with the Python of a virtual environment made by
scripts/python-tools, after printing the versions of the tools in it; exits 77 (CTest's skip)
when that environment does not exist.

    run_in_venv.py <venv dir> <test module>
"""

import os
import sys

venv, module = sys.argv[1], sys.argv[2]
python = os.path.join(venv, "bin", "python")
if not os.path.exists(os.path.join(venv, ".rlzoo-stamp")):
    print(f"SKIP: no {venv} (scripts/python-tools makes it from PyPI; scripts/setup runs it)")
    sys.exit(77)
os.execv(python, [python, "-c",
                  "import sys, unittest, importlib.metadata as m\n"
                  "for p in ('gymnasium', 'stable-baselines3'):\n"
                  "    try: print(p, m.version(p))\n"
                  "    except m.PackageNotFoundError: pass\n"
                  "import numpy, rlzoo; print('numpy', numpy.__version__, '| rlzoo', rlzoo.__version__)\n"
                  "sys.argv = ['unittest', '-v', sys.argv[1]]\n"
                  "unittest.main(module=None)\n", module])
