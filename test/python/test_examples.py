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


def test_demo_prints_one_table_per_kernel(capsys):
    runpy.run_path(os.path.join(EXAMPLES, "demo.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert out.count("VGPRs") == 2 and "vector_add" in out and "softmax" in out
    assert out.count("gfx950") == 2 and out.count("gfx1250") == 2


@pytest.mark.parametrize("script", ["vector_add.py", "softmax.py"])
def test_example_main(script, capsys):
    runpy.run_path(os.path.join(EXAMPLES, script), run_name="__main__")
    out = capsys.readouterr().out
    assert "gfx950" in out and "gfx1250" in out and "vgpr_count" in out
