"""Installs the rocktile-compile command into the Python interpreter's
scripts directory (what `pip install` would do for a console script)."""
import os
import sys
import sysconfig

path = os.path.join(sysconfig.get_path("scripts"), "rocktile-compile")
script = f"#!{sys.executable}\nfrom rocktile.aot import main\n\nmain()\n"
if not os.path.exists(path) or open(path).read() != script:
    with open(path, "w") as f:
        f.write(script)
    os.chmod(path, 0o755)
