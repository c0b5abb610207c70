"""gl.amd.cdna4: gfx950's operations: those of CDNA3 (bf16 buffer atomic
adds besides), its async copies and its block-scaled MFMA."""
from .....language import semantic
from .....language.semantic import _unwrap
from .....language.semantic.layouts import scale_layout
from ..buffers import buffer_atomics, buffer_load, buffer_store  # noqa: F401
from ..cdna3 import mfma  # noqa: F401
from . import async_copy


def mfma_scaled(a, a_scale, a_format, b, b_scale, b_format, acc, cd_regclass=None):
    """(a * a_scale) x (b * b_scale) + acc on gfx950's block-scaled MFMA
    (v_mfma_scale_f32_*_f8f6f4): acc in an AMDMFMALayout P of instr_shape
    [16, 16, 128] or [32, 32, 64]; a and b in DotOperandLayout(0 and 1, P,
    k_width), fp8 ("e4m3", "e5m2") or uint8 bytes of two E2M1 codes along
    K ("e2m1", k_width in bytes); a_scale (M x K/32) and b_scale (N x K/32)
    uint8 E8M0 in get_mfma_scale_layout's layouts."""
    if _unwrap(cd_regclass) not in (None, "a", "v"):
        raise semantic.SemanticError(f"cd_regclass must be 'a', 'v' or None, got {_unwrap(cd_regclass)!r}")
    return semantic.scaled_matrix_product(_unwrap(a), _unwrap(a_scale), _unwrap(a_format), _unwrap(b),
                                          _unwrap(b_scale), _unwrap(b_format), _unwrap(acc), "mfma_scaled")


def get_mfma_scale_layout(dot_operand_layout, shape, scale_factor=32):
    """The layout of the scales of the operand in `dot_operand_layout`, one
    per `scale_factor` (32) k, for a scale tile of `shape`."""
    return scale_layout(dot_operand_layout, scale_factor)


globals().update(buffer_atomics("cdna4"))
__all__ = ["async_copy", "buffer_load", "buffer_store", "get_mfma_scale_layout", "mfma", "mfma_scaled",
           *buffer_atomics("cdna4")]
