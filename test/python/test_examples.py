"""The example kernels compile for both targets, and demo.py prints its tables."""
import os
import runpy

import pytest

import softmax
import vector_add

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples")


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_examples_compile(target):
    add = vector_add.compile_add(target)
    assert add.hsaco[:4] == b"\x7fELF"
    assert "tile.addptr" in add.asm["tile"] or "tile.load" in add.asm["tile"]
    soft = softmax.compile_softmax(target, n_cols=1000)
    assert soft.constexprs == {"BLOCK": 1024}
    assert soft.hsaco[:4] == b"\x7fELF"
    assert soft.metadata["vgpr_spill_count"] == 0 and soft.metadata["sgpr_spill_count"] == 0


def test_demo_prints_resources_and_emulator_results(capsys):
    runpy.run_path(os.path.join(EXAMPLES, "demo.py"), run_name="__main__")
    out = capsys.readouterr().out
    resources, emulated = out.split("In the CPU emulator")
    assert resources.count("VGPRs") == 2 and "vector_add" in resources and "softmax" in resources
    assert resources.count("gfx950") == 2 and resources.count("gfx1250") == 2
    rows = [line.split() for line in emulated.splitlines() if line.startswith(("vector_add", "softmax"))]
    assert [(r[0], r[1]) for r in rows] == [(k, t) for k in ("vector_add", "softmax") for t in ("gfx950", "gfx1250")]
    for row in rows:  # max error is the column before the time ("12.3 ms")
        assert float(row[-3]) < 1e-6


@pytest.mark.parametrize("script", ["vector_add.py", "softmax.py"])
def test_example_main(script, capsys):
    runpy.run_path(os.path.join(EXAMPLES, script), run_name="__main__")
    out = capsys.readouterr().out
    assert "gfx950" in out and "gfx1250" in out and "vgpr_count" in out
