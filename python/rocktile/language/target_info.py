"""`tl.target_info`: the chip a kernel is compiled for, through Triton's
constexpr functions, so that kernels which choose code by target port:
`if target_info.is_hip_cdna4(): ...` is decided while compiling."""
from typing import NamedTuple

from . import semantic
from .core import constexpr_function

__all__ = ["GPUTarget", "current_target", "cuda_capability_geq", "is_cuda", "is_hip", "is_hip_cdna3",
           "is_hip_cdna4", "is_hip_gfx1250"]


class GPUTarget(NamedTuple):
    """Triton's description of a target: backend, architecture, wave size."""
    backend: str
    arch: str
    warp_size: int


def current_target():
    """The target of the kernel being compiled; None outside a compile (as
    Triton's without a GPU driver)."""
    if not semantic.is_tracing():
        return None
    ir = semantic.current()
    return GPUTarget("hip", ir.target, ir.C.wave_size(ir.target))


def _arch():
    target = current_target()
    return target.arch if target else None


@constexpr_function
def is_cuda():
    return False


@constexpr_function
def cuda_capability_geq(major, minor=0):
    return False


@constexpr_function
def is_hip():
    return current_target() is not None


@constexpr_function
def is_hip_cdna3():
    return _arch() == "gfx942"


@constexpr_function
def is_hip_cdna4():
    return _arch() == "gfx950"


@constexpr_function
def is_hip_gfx1250():
    return (_arch() or "").startswith("gfx1250")
