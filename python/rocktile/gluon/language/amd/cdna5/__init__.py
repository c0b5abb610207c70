"""gl.amd.cdna5: gfx1250's operations (gl.amd.gfx1250 is the same module's names)."""
from .....language import semantic
from .....language.semantic import _unwrap
from .....language.semantic.layouts import scale_layout
from . import async_copy, tdm
from ..buffers import buffer_load, buffer_store  # noqa: F401

__all__ = ["async_copy", "buffer_load", "buffer_store", "get_wmma_scale_layout", "tdm", "wmma", "wmma_scaled"]


def wmma(a, b, acc):
    """a x b + acc on the WMMA instruction the layouts name: acc in an
    AMDWMMALayout P, a and b in DotOperandLayout(0 and 1, P, k_width)."""
    return semantic.matrix_product(_unwrap(a), _unwrap(b), _unwrap(acc), "wmma")


def wmma_scaled(a, a_scale, a_format, b, b_scale, b_format, acc):
    """(a * a_scale) x (b * b_scale) + acc on gfx1250's block-scaled WMMA
    (v_wmma_scale_f32_16x16x128_f8f6f4): acc in an AMDWMMALayout P of
    instr_shape [16, 16, 128]; a and b in DotOperandLayout(0 and 1, P,
    k_width), fp8 ("e4m3", "e5m2") or uint8 bytes of two E2M1 codes along
    K ("e2m1"); a_scale (M x K/32) and b_scale (N x K/32) uint8 E8M0 in
    get_wmma_scale_layout's layouts."""
    return semantic.scaled_matrix_product(_unwrap(a), _unwrap(a_scale), _unwrap(a_format), _unwrap(b),
                                          _unwrap(b_scale), _unwrap(b_format), _unwrap(acc), "wmma_scaled")


def get_wmma_scale_layout(dot_operand_layout, shape, scale_factor=32):
    """The layout of the scales of the operand in `dot_operand_layout`, one
    per `scale_factor` (32) k, for a scale tile of `shape`."""
    return scale_layout(dot_operand_layout, scale_factor)
