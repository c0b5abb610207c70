"""tl.inline_asm_elementwise: the assembly is in the code object once per
element on both targets, results come back as Triton returns them, impure
assembly is kept when its result is unused, and what cannot work is a
CompilationError at the Python line (the emulator cannot run assembly)."""
import re

import numpy as np
import pytest

import rocktile
import rocktile.language as tl

TARGETS = ["gfx950", "gfx1250"]
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "o_ptr": "*fp32", "p_ptr": "*i32"}


@rocktile.jit
def asm_kernel(x_ptr, y_ptr, o_ptr, p_ptr, N: tl.constexpr, KEEP: tl.constexpr):
    offs = tl.arange(0, N)
    x, y = tl.load(x_ptr + offs), tl.load(y_ptr + offs)
    m = tl.inline_asm_elementwise("v_max_f32 $0, $1, $2", "=v,v,v", [x, y], dtype=tl.float32, is_pure=True, pack=1)
    lo, hi = tl.inline_asm_elementwise("v_mov_b32 $0, $2\nv_not_b32 $1, $2", "=v,=v,v", [x.to(tl.int32, bitcast=True)],
                                       dtype=(tl.int32, tl.int32), is_pure=True, pack=1)
    tl.store(o_ptr + offs, m)
    tl.store(p_ptr + offs, lo ^ hi)
    if KEEP:
        # Unused, but not pure: it stays.
        tl.inline_asm_elementwise("s_sleep 1", "=v,v", [x], dtype=tl.float32, is_pure=False, pack=1)
    # Unused and pure: dropped.
    tl.inline_asm_elementwise("s_nop 7", "=v,v", [y], dtype=tl.float32, is_pure=True, pack=1)


@rocktile.jit
def clobbering_kernel(x_ptr, o_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    y = tl.inline_asm_elementwise("s_mov_b32 s0, 0\nv_add_f32 $0, s0, $1", "=v,v,~{s0}", [tl.load(x_ptr + offs)],
                                  dtype=tl.float32, is_pure=True, pack=1)
    tl.store(o_ptr + offs, y)


@pytest.mark.parametrize("target", TARGETS)
def test_clobbers_follow_the_operands(target):
    """LLVM's clobber entries ("~{s0}") name no operand: they are accepted
    after the outputs and inputs, and LLVM keeps s0 free for the assembly."""
    kernel = rocktile.compile(clobbering_kernel, {"x_ptr": "*fp32", "o_ptr": "*fp32"}, {"N": 256}, target=target)
    assert len(re.findall(r"^\s*v_add_f32 v\d+, s0, v\d+", kernel.asm["amdgcn"], re.M)) == 256 // (
        4 * {"gfx950": 64, "gfx1250": 32}[target])


@pytest.mark.parametrize("target", TARGETS)
def test_assembly_is_in_the_code_object(target):
    kernel = rocktile.compile(asm_kernel, SIGNATURE, {"N": 256, "KEEP": True}, target=target, num_warps=4)
    asm = kernel.asm["amdgcn"]
    per_lane = 256 // (4 * {"gfx950": 64, "gfx1250": 32}[target])
    assert len(re.findall(r"^\s*v_max_f32\b", asm, re.M)) == per_lane, asm
    assert len(re.findall(r"^\s*v_not_b32\b", asm, re.M)) == per_lane
    assert len(re.findall(r"^\s*s_sleep 1\b", asm, re.M)) == per_lane
    assert not re.search(r"^\s*s_nop 7\b", asm, re.M)
    tile_ir = kernel.asm["tile"]
    assert tile_ir.count("tile.elementwise_inline_asm") == 3  # the unused pure one is gone


def test_the_emulator_refuses_it_at_the_line():
    x = np.zeros(256, np.float32)
    with pytest.raises(rocktile.CompilationError, match=r"test_inline_asm\.py:\d+.*cannot run AMDGPU inline assembly"):
        asm_kernel[(1,)](x, x, x, x.view(np.int32), N=256, KEEP=False)


@rocktile.jit
def packed_kernel(b_ptr, h_ptr, f_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    bytes_ = tl.load(b_ptr + offs)
    halves = tl.load(h_ptr + offs)
    floats = tl.load(f_ptr + offs)
    # Four int8 in one 32-bit register.
    bytes_ = tl.inline_asm_elementwise("v_not_b32 $0, $1", "=v,v", [bytes_], dtype=tl.int8, is_pure=True, pack=4)
    # Four fp16 in two registers of two each.
    halves = tl.inline_asm_elementwise("v_pk_add_f16 $0, $2, $2\nv_pk_add_f16 $1, $3, $3", "=v,=v,v,v", [halves],
                                       dtype=tl.float16, is_pure=True, pack=4)
    # Two fp32, one register each.
    floats = tl.inline_asm_elementwise("v_max_f32 $0, $2, $3\nv_min_f32 $1, $2, $3", "=v,=v,v,v", [floats],
                                       dtype=tl.float32, is_pure=True, pack=2)
    tl.store(b_ptr + offs, bytes_)
    tl.store(h_ptr + offs, halves)
    tl.store(f_ptr + offs, floats)


@pytest.mark.parametrize("target", TARGETS)
def test_packed_assembly_runs_once_per_pack(target):
    """pack=4 on int8 hands the assembly one 32-bit register of four
    elements; on fp16 two registers of two; pack=2 on fp32 one register
    each (Triton's rule). Each runs once per pack of a lane's elements."""
    kernel = rocktile.compile(packed_kernel, {"b_ptr": "*i8", "h_ptr": "*fp16", "f_ptr": "*fp32"}, {"N": 2048},
                              target=target, num_warps=4)
    asm = kernel.asm["amdgcn"]
    per_lane = 2048 // (4 * {"gfx950": 64, "gfx1250": 32}[target])
    assert len(re.findall(r"^\s*v_not_b32\b", asm, re.M)) == per_lane // 4, asm
    assert len(re.findall(r"^\s*v_pk_add_f16\b", asm, re.M)) == 2 * per_lane // 4
    assert len(re.findall(r"^\s*v_max_f32\b", asm, re.M)) == per_lane // 2


@rocktile.jit
def bad_asm(x_ptr, o_ptr, MODE: tl.constexpr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    if MODE == 0:
        y = tl.inline_asm_elementwise("v_mov_b32 $0, $1", "=v,v", [x], dtype=tl.float32, is_pure=True, pack=3)
    elif MODE == 3:
        y = tl.inline_asm_elementwise("v_mov_b32 $0, $1", "=v,v", [x], dtype=tl.float32, is_pure=True, pack=2)
    elif MODE == 1:
        y = tl.inline_asm_elementwise("v_mov_b32 $0, $1", "=v", [x], dtype=tl.float32, is_pure=True, pack=1)
    elif MODE == 2:
        y = tl.inline_asm_elementwise("v_mov_b32 $0, $1", "=v,v", [x], dtype=tl.pointer_type(tl.float32),
                                      is_pure=True, pack=1)
    tl.store(o_ptr + offs, y)


@pytest.mark.parametrize("mode,message", [
    (0, r"pack must be a power of two, got 3"),
    (3, r"constraints \"=v,v\" must give 2 output\(s\) \(\"=\.\.\.\"\) and then 2 input\(s\) for pack 2"),
    (1, r"constraints \"=v\" must give 1 output\(s\) \(\"=\.\.\.\"\) and then 1 input\(s\)"),
    (2, r"dtype must be a dtype or a sequence of dtypes"),
])
def test_bad_uses_are_errors_at_the_line(mode, message):
    with pytest.raises(rocktile.CompilationError, match=r"test_inline_asm\.py:\d+") as info:
        rocktile.compile(bad_asm, {"x_ptr": "*fp32", "o_ptr": "*fp32"}, {"MODE": mode}, target="gfx950")
    assert re.search(message, str(info.value)), str(info.value)
