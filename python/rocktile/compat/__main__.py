"""python -m rocktile.compat script.py [args...] | -m module [args...]:
runs a Triton program with `import triton` resolved to rocktile."""
import os
import runpy
import sys

from . import install


def main(argv):
    if not argv or argv[0] in ("-h", "--help") or (argv[0] == "-m" and len(argv) < 2):
        print(__doc__.strip())
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    install()
    if argv[0] == "-m":
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
