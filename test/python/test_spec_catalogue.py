"""The kernel catalogue of docs/language.md ("The executable
specification"): every kernel listed exists, is launched in its module, and
there are at least 40."""
import importlib
import os
import re

import rocktile
from rocktile import tuning

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def catalogue():
    text = open(os.path.join(ROOT, "docs", "language.md")).read()
    section = text.split("## The executable specification", 1)[1]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+?) \| ([^|]+?) \|$", section, re.M)
    return [(name, where.strip(), features.strip()) for name, where, features in rows]


def test_catalogue_kernels_exist_and_are_launched():
    rows = catalogue()
    for name, where, _ in rows:
        path = where.split(" ")[0]
        module_name = os.path.splitext(os.path.basename(path))[0]
        module = importlib.import_module(module_name)
        kernel = getattr(module, name, None)
        assert isinstance(kernel, (rocktile.JITFunction, tuning.KernelInterface)), f"{name} is not a kernel of {path}"
        # launched in the emulator by the test module named (or its own module)
        tests = re.findall(r"\(?(test_\w+\.py)\)?", where) or [os.path.basename(path)]
        sources = [open(os.path.join(ROOT, "test", "python", t)).read() for t in tests
                   if os.path.exists(os.path.join(ROOT, "test", "python", t))]
        sources.append(open(module.__file__).read())
        assert any(re.search(rf"\b{name}\[", s) or re.search(rf"\b{module_name}\.\w+\(", s) or
                   re.search(rf"from {module_name} import", s) for s in sources), name
    assert len(rows) >= 40, len(rows)
    print(f"{len(rows)} kernels in the executable specification")
