import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for path in (os.path.join(ROOT, "python"), os.path.join(ROOT, "examples")):
    if path not in sys.path:
        sys.path.insert(0, path)
