"""examples/gluon_attention.py, gfx1250's attention forward at the explicit
level, run in the emulator against numpy."""
import math
import os
import sys

import numpy as np
import pytest

import rocktile

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples")
sys.path.insert(0, EXAMPLES)
import gluon_attention  # noqa: E402


def inputs(heads, n_ctx, head_dim, seed=0):
    import ml_dtypes
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((heads, n_ctx, head_dim)).astype(ml_dtypes.bfloat16) for _ in range(3)]


@pytest.mark.parametrize("heads, n_ctx, head_dim, config", [
    (2, 200, 64, {}),
    (1, 77, 64, {"stages": 2}),
    (3, 130, 128, {"block_m": 32, "block_n": 32}),
    (1, 256, 64, {"block_m": 128, "num_warps": 8}),
])
def test_attention(heads, n_ctx, head_dim, config):
    """Ragged N_CTX (the copies zero-fill past it and the scores there are
    masked), several ring depths, blocks and warps. P is rounded to bf16
    for the second product and O is stored in bf16: tolerance 1e-2."""
    q, k, v = inputs(heads, n_ctx, head_dim)
    o = gluon_attention.attention(q, k, v, **config)
    np.testing.assert_allclose(o.astype(np.float32), gluon_attention.reference(q, k, v), rtol=1e-2, atol=1e-2)


def test_a_weak_wait_in_attention_is_caught():
    """The example with its loop's wait one copy weaker (the source
    rewritten, so that the bug is planted in the real kernel): the first
    step's V block, copied before the loop (the newest of its copies), is
    read before it lands, and the emulator names that copy and the read."""
    import importlib.util
    import tempfile
    q, k, v = inputs(1, 128, 64)
    with open(gluon_attention.__file__) as f:
        source = f.read()
    planted = source.replace("gl.amd.gfx1250.tdm.async_wait(2 * (STAGES - 1))  # this block's",
                             "gl.amd.gfx1250.tdm.async_wait(2 * (STAGES - 1) + 1)  # this block's")
    assert planted != source
    lines = source.splitlines()
    copy = next(i for i, line in enumerate(lines, 1) if "v_ring.index(i))" in line)
    read = next(i for i, line in enumerate(lines, 1) if "v = v_ring.index(j % STAGES).load" in line)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "gluon_attention_planted.py")
        with open(path, "w") as f:
            f.write(planted)
        spec = importlib.util.spec_from_file_location("gluon_attention_planted", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        with pytest.raises(rocktile.EmulatorError) as e:
            module.gluon_attention_kernel[(2, 1)](q, k, v, np.empty_like(q), 128, 1 / math.sqrt(64),
                                                  **gluon_attention.attention_layouts(64), target="gfx1250")
    message = str(e.value)
    assert "read before its copy was waited for" in message, message
    assert f"{path}:{copy}:" in message and f"{path}:{read}:" in message, message
