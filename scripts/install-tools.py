"""What `make build` does after compiling (what `pip install -e` would do):
points the Python interpreter at this checkout's python/ with a .pth file in
its site-packages, saying so and warning when that replaces another
checkout's registration; installs the commands the README names
(rocktile-compile, and the built rocktile-opt and rocktile-lds-map) into the
interpreter's scripts directory; and, where pyenv manages that interpreter
(whose commands are reached through shims), makes their shims, so that each
command answers in a new shell right away.

    python scripts/install-tools.py BUILD_DIR
"""
import os
import shutil
import site
import subprocess
import sys
import sysconfig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def register_package():
    source = os.path.join(ROOT, "python")
    pth = os.path.join(site.getsitepackages()[0], "rocktile.pth")
    before = open(pth).read().strip() if os.path.exists(pth) else None
    if before and os.path.realpath(before) != os.path.realpath(source):
        print(f"make build: WARNING: {sys.executable} imported rocktile from {before} (another checkout); "
              f"from now on it imports this one, {source}. Run `make build` there to point it back.",
              file=sys.stderr)
    if before != source:
        with open(pth, "w") as f:
            f.write(source + "\n")
    print(f"make build: `import rocktile` in {sys.executable} loads {source} (registered in {pth})")


def install_commands(build):
    scripts = sysconfig.get_path("scripts")
    commands = {"rocktile-compile": f"#!{sys.executable}\nfrom rocktile.aot import main\n\nmain()\n"}
    for tool in ("rocktile-opt", "rocktile-lds-map"):
        commands[tool] = os.path.abspath(os.path.join(build, "compiler", "tools", tool, tool))
    for name, what in commands.items():
        path = os.path.join(scripts, name)
        if name == "rocktile-compile":  # a script
            if not os.path.isfile(path) or os.path.islink(path) or open(path).read() != what:
                if os.path.lexists(path):
                    os.remove(path)
                with open(path, "w") as f:
                    f.write(what)
                os.chmod(path, 0o755)
        elif not os.path.islink(path) or os.readlink(path) != what:  # a link to the built binary
            if os.path.lexists(path):
                os.remove(path)
            os.symlink(what, path)
    # pyenv reaches an interpreter's commands through shims that `pyenv
    # rehash` makes; without them a new shell answers "command not found".
    pyenv = shutil.which("pyenv")
    root = os.environ.get("PYENV_ROOT") or (pyenv and subprocess.run([pyenv, "root"], capture_output=True,
                                                                      text=True).stdout.strip())
    if pyenv and root and os.path.realpath(scripts).startswith(os.path.realpath(root) + os.sep):
        subprocess.run([pyenv, "rehash"], check=False)
        reached = f"reached through pyenv's shims in {os.path.join(root, 'shims')}"
    elif os.path.realpath(scripts) in map(os.path.realpath, os.environ.get("PATH", "").split(os.pathsep)):
        reached = "on PATH"
    else:
        reached = f"not on PATH: add {scripts} to it"
    print(f"make build: {', '.join(commands)} installed in {scripts} ({reached})")


if __name__ == "__main__":
    register_package()
    install_commands(sys.argv[1] if len(sys.argv) > 1 else "build")
