"""tl.dot and tl.dot_scaled, and products with dimensions below 16."""
from __future__ import annotations

from ...errors import SemanticError
from ..types import block_type, bfloat16, float8e4nv, float8e5, float16, float32, int8, int32, uint8
from .tracing import _typed
from .conversions import _emit, cast, to_tensor
from .shapes import permute, reshape
from .arithmetic import sub
from .memory import full
from .reductions import join, split
from .layouts import AMDWMMALayout, DotOperandLayout, ScaleLayout


# tile.dot's operands: a, b, acc, and the optional a_scale and b_scale.
_DOT_SEGMENTS = {"operandSegmentSizes": "array<i32: 1, 1, 1, 0, 0>"}
_DOT_PRECISIONS = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")
# bf16xN splits each fp32 operand into bf16 parts and sums the products of
# the parts whose orders add up to at most this (Triton's AMD backend).
_BF16_SPLITS = {"bf16x3": 2, "bf16x6": 3}


def scaled_dot(a, a_format, a_scale, b, b_format, b_scale, acc, scale_format="e8m0"):
    """The scaled matrix instructions' product (tl.dot_scaled on MX formats
    and NVFP4, microscaling.py checks the arguments): `a` (M x K) and `b`
    (K x N), fp8, or uint8 codes of their formats (bytes of two E2M1 codes
    along K: M x K/2, K/2 x N; one FP6 code per byte), times their uint8
    scales, E8M0 per 32 k (M x K/32 and N x K/32) or E4M3 per 16, plus f32
    `acc`."""
    shape = (a.shape[0], b.shape[1])
    acc = full(shape, 0, float32) if acc is None else to_tensor(acc)
    if tuple(acc.shape) != shape or acc.dtype != float32:
        raise SemanticError(f"tl.dot_scaled: acc must be a {'x'.join(map(str, shape))} tile of fp32, got "
                            f"{'x'.join(map(str, acc.shape)) or 'a scalar'} of {acc.dtype}")
    attrs = {"operandSegmentSizes": "array<i32: 1, 1, 1, 1, 1>"}
    operands = []
    for name, x, fmt in (("a_format", a, a_format), ("b_format", b, b_format)):
        if x.dtype == uint8:
            attrs[name] = f'"{fmt}"'
            x = cast(x, int8, bitcast=True)
        operands.append(x)
    scales = [cast(s, int8 if scale_format == "e8m0" else float8e4nv, bitcast=True) for s in (a_scale, b_scale)]
    return _emit("tile.dot", [*operands, acc, *scales], block_type(float32, shape), attrs)


def scaled_upcast(codes, scales, axis, out):
    """E2M1 codes (uint8, two per byte along `axis`, the first in the low
    nibble) times their blocks' E8M0 scales (uint8, the result's shape but
    one per block along `axis`) as `out` (bf16, fp16) values, on the
    targets' scaled conversions (tile.scaled_upcast)."""
    shape = list(codes.shape)
    shape[axis] *= 2
    codes, scales = (cast(x, int8, bitcast=True) for x in (codes, scales))
    return _emit("tile.scaled_upcast", [codes, scales], _typed(shape, out), {"axis": f"{axis} : i32"})


def dot(a, b, acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype):
    """tl.dot: a (M x K) x b (K x N) + acc, with Triton's shape rules."""
    a, b = to_tensor(a), to_tensor(b)
    if len(a.shape) != len(b.shape) or len(a.shape) not in (2, 3):
        raise SemanticError(f"tl.dot needs two 2-D operands, or two 3-D ones (a batched product), got shapes "
                            f"{list(a.shape)} and {list(b.shape)}")
    batch = tuple(a.shape[:-2])
    (M, K), (K2, N) = a.shape[-2:], b.shape[-2:]
    if K != K2:
        raise SemanticError(f"tl.dot: the inner dimensions differ: {list(a.shape)} x {list(b.shape)}")
    if tuple(b.shape[:-2]) != batch:
        raise SemanticError(f"tl.dot: the batch dimensions differ: {list(a.shape)} x {list(b.shape)}")
    if min(M, N, K) < 16:
        return _padded_dot(a, b, acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype)
    # allow_tf32 (deprecated) permits TF32, which neither chip has: its
    # products stay fp32, as in Triton's AMD backend.
    if input_precision is not None and allow_tf32 is not None:
        raise SemanticError("tl.dot: give input_precision or allow_tf32 (deprecated), not both")
    if input_precision is not None and input_precision not in _DOT_PRECISIONS:
        raise SemanticError(f"tl.dot: input_precision must be one of {', '.join(_DOT_PRECISIONS)}, "
                            f"got {input_precision!r}")
    sixteen = a.dtype == b.dtype and (a.dtype.is_fp16() or a.dtype.is_bf16())
    fp8 = a.dtype.is_fp8() and b.dtype.is_fp8()
    integer = a.dtype == b.dtype == int8
    fp32 = a.dtype == b.dtype == float32
    if not (sixteen or fp8 or integer or fp32):
        raise SemanticError(f"tl.dot of {a.dtype} by {b.dtype} is not supported; supported are bf16 x bf16, "
                            "fp16 x fp16, fp8 x fp8 (float8e4nv, float8e5, mixed) and fp32 x fp32 into fp32, "
                            "and int8 x int8 into int32")
    if integer:
        # As Triton: an int8 product is int32, whatever out_dtype says.
        out_dtype = int32
    elif out_dtype != float32 and not (out_dtype == float16 and a.dtype.is_fp16()):
        raise SemanticError(f"tl.dot into {out_dtype} of {a.dtype} inputs is not supported; out_dtype must be "
                            "tl.float32, or tl.float16 for fp16 inputs")
    if fp32 and input_precision in ("tf32", "tf32x3"):
        raise SemanticError(f"tl.dot: input_precision={input_precision!r} needs TF32 matrix instructions, which "
                            "gfx950 and gfx1250 do not have (Triton's AMD backend refuses it too); use 'ieee' "
                            "(the fp32 matrix instructions), 'bf16x3' or 'bf16x6'")
    shape = batch + (M, N)
    if acc is None:
        acc = full(shape, 0, out_dtype)
    else:
        acc = to_tensor(acc)
        if tuple(acc.shape) != shape or acc.dtype != out_dtype:
            raise SemanticError(f"tl.dot: acc must be a {'x'.join(map(str, shape))} tile of {out_dtype}, got "
                                f"{'x'.join(map(str, acc.shape)) or 'a scalar'} of {acc.dtype}")
    acc_type = int32 if integer else float32

    def product(x, y, c):
        return _emit("tile.dot", [x, y, c], block_type(acc_type, shape), _DOT_SEGMENTS)

    d = cast(acc, acc_type)
    if fp32 and input_precision in _BF16_SPLITS:
        # x = x0 + x1 + ... in bf16 parts, each the bf16 rounding of what the
        # earlier ones leave; the small products are added first.
        def parts(x):
            out, rest = [], x
            for _ in range(_BF16_SPLITS[input_precision]):
                out.append(cast(rest, bfloat16))
                rest = sub(rest, cast(out[-1], float32))
            return out
        pa, pb = parts(a), parts(b)
        n = len(pa)
        for order in range(n - 1, -1, -1):
            for i in range(order, -1, -1):
                d = product(pa[i], pb[order - i], d)
        return cast(d, out_dtype)
    # For 16-bit, fp8 and int8 inputs input_precision, allow_tf32 and
    # max_num_imprecise_acc change nothing: the products are exact and
    # accumulate in fp32 (int32). An fp16 accumulator (Triton's
    # out_dtype=float16 for fp16 inputs): the matrix cores add in fp32, and
    # each dot rounds its result to fp16.
    return cast(product(a, b, d), out_dtype)


def _interleave_zeros(x, axis):
    """`x` with a zero after each row (axis -2) or column (axis -1)."""
    pad = join(x, full(x.shape, 0, x.dtype))  # (..., R, C, 2)
    rank = len(pad.shape)
    if axis == -2:  # (..., R, 2, C)
        pad = permute(pad, tuple(range(rank - 3)) + (rank - 3, rank - 1, rank - 2))
    shape = list(x.shape)
    shape[axis] *= 2
    return reshape(pad, shape)


def _even_part(x, axis):
    """The even rows (axis -2) or columns (axis -1) of `x`."""
    shape = list(x.shape)
    if axis == -1:
        return split(reshape(x, shape[:-1] + [shape[-1] // 2, 2]))[0]
    pairs = reshape(x, shape[:-2] + [shape[-2] // 2, 2, shape[-1]])
    rank = len(pairs.shape)
    return split(permute(pairs, tuple(range(rank - 3)) + (rank - 3, rank - 1, rank - 2)))[0]


def _padded_dot(a, b, acc, *options):
    """tl.dot with M, N or K below 16, which Triton's AMD backend takes (on
    FMA): each is doubled up to 16 with interleaved zero rows and columns,
    which add exact zeros to the products, and the result keeps the rows and
    columns of the real ones."""
    M, N = a.shape[-2], b.shape[-1]
    if acc is not None:
        acc = to_tensor(acc)
        if tuple(acc.shape) != tuple(a.shape[:-2]) + (M, N):
            raise SemanticError(f"tl.dot: acc must be a {'x'.join(map(str, tuple(a.shape[:-2]) + (M, N)))} tile, "
                                f"got {'x'.join(map(str, acc.shape)) or 'a scalar'}")
    doubled_m = doubled_n = 0
    while a.shape[-2] < 16:
        a, acc, doubled_m = _interleave_zeros(a, -2), acc if acc is None else _interleave_zeros(acc, -2), doubled_m + 1
    while b.shape[-1] < 16:
        b, acc, doubled_n = _interleave_zeros(b, -1), acc if acc is None else _interleave_zeros(acc, -1), doubled_n + 1
    while a.shape[-1] < 16:
        a, b = _interleave_zeros(a, -1), _interleave_zeros(b, -2)
    out = dot(a, b, acc, *options)
    for _ in range(doubled_m):
        out = _even_part(out, -2)
    for _ in range(doubled_n):
        out = _even_part(out, -1)
    return out


def _instruction_attrs(a, b, acc, fname, a_k=None, b_k=None):
    """The checks of the explicit level's products and the tile.dot
    attributes of the instruction their layouts name: acc in the
    instruction's accumulator layout P, a and b in DotOperandLayout(0 and
    1, P, k_width); `a_k` and `b_k` the K they hold (bytes of E2M1 pairs
    hold two each, and their WMMA parent may count the instruction's k in
    such bytes, as Triton's gfx1250 wmma_scaled has it)."""
    la, lb, lc = a.type.layout, b.type.layout, acc.type.layout
    operands = (isinstance(la, DotOperandLayout) and la.operand_index == 0 and isinstance(lb, DotOperandLayout)
                and lb.operand_index == 1)

    def parent_of_acc(layout, k):
        if layout.parent == lc:
            return True
        return (k is not None and isinstance(layout.parent, AMDWMMALayout) and isinstance(lc, AMDWMMALayout)
                and layout.parent == AMDWMMALayout(3, lc.transposed, lc.warp_bases,
                                                   instr_shape=[*lc.instr_shape[:2], lc.instr_shape[2] // 2]))
    if not operands or not (parent_of_acc(la, a_k) and parent_of_acc(lb, b_k)):
        raise SemanticError(f"{fname} takes acc in a matrix-instruction layout P and a and b in "
                            f"DotOperandLayout(0, P, k_width) and DotOperandLayout(1, P, k_width); got a in "
                            f"{la!r}, b in {lb!r}, acc in {lc!r}")
    a_k, b_k = a_k or a.shape[-1], b_k or b.shape[0]
    if len(a.shape) != 2 or a_k != b_k or (a.shape[0], b.shape[1]) != tuple(acc.shape):
        raise SemanticError(f"{fname}: a ({list(a.shape)}) times b ({list(b.shape)}) is not the shape of acc "
                            f"({list(acc.shape)})")
    instr = la.instr(a.dtype)
    if lb.instr(b.dtype)["name"] != instr["name"]:
        raise SemanticError(f"{fname}: a ({a.dtype}) and b ({b.dtype}) need different matrix instructions")
    if instr["acc"] != {"fp32": "f32", "int32": "i32"}.get(acc.dtype.name):
        raise SemanticError(f"{fname}: {instr['name']} accumulates in {instr['acc']}, but acc is {acc.dtype}")
    warps_n = 1 << sum(1 for w in lc.warp_tiles if w[1])
    attrs = {"instr": f'"{instr["name"]}"', "warps_n": f"{warps_n} : i32"}
    if lc.transposed:
        attrs["transposed"] = "unit"
    return attrs


def matrix_product(a, b, acc, fname):
    """The explicit level's a x b + acc on the matrix instruction the
    layouts name (gl.amd.cdna4.mfma, gl.amd.gfx1250.wmma)."""
    a, b, acc = to_tensor(a), to_tensor(b), to_tensor(acc)
    attrs = _instruction_attrs(a, b, acc, f"{fname}(a, b, acc)")
    return _emit("tile.dot", [a, b, acc], acc.type, {**_DOT_SEGMENTS, **attrs})


# The formats of mfma_scaled's and wmma_scaled's operands and their dtypes.
_SCALED_FORMATS = {"e2m1": (uint8, int8), "e4m3": (float8e4nv,), "e5m2": (float8e5,)}


def scaled_matrix_product(a, a_scale, a_format, b, b_scale, b_format, acc, fname):
    """The explicit level's (a * a_scale) x (b * b_scale) + acc on the
    block-scaled form of the instruction the layouts name
    (gl.amd.cdna4.mfma_scaled, gl.amd.gfx1250.wmma_scaled): a and b fp8,
    or bytes of two E2M1 codes along K ("e2m1"), the scales E8M0 bytes per
    32 k in the layouts get_mfma_scale_layout / get_wmma_scale_layout
    give."""
    a, b, acc = to_tensor(a), to_tensor(b), to_tensor(acc)
    for name, x, fmt in (("a", a, a_format), ("b", b, b_format)):
        if fmt not in _SCALED_FORMATS or x.dtype not in _SCALED_FORMATS[fmt]:
            raise SemanticError(f"{fname}: {name}_format must be 'e2m1' (uint8 bytes of two codes), 'e4m3' "
                                f"(float8e4nv) or 'e5m2' (float8e5) and match {name}'s dtype; got {fmt!r} for "
                                f"{x.dtype}")
    a_k, b_k = a.shape[-1] * (2 if a_format == "e2m1" else 1), b.shape[0] * (2 if b_format == "e2m1" else 1)
    attrs = _instruction_attrs(a, b, acc, f"{fname}(a, a_scale, a_format, b, b_scale, b_format, acc)", a_k, b_k)
    scales = []
    for name, scale, x, shape in (("a_scale", a_scale, a, (a.shape[0], a_k // 32)),
                                  ("b_scale", b_scale, b, (b.shape[1], a_k // 32))):
        if scale is None:
            raise SemanticError(f"{fname} without {name} is not supported by rocktile yet: pass scales of 127 "
                                "(2^0) for none")
        scale = to_tensor(scale)
        expected = ScaleLayout(x.type.layout, 32)
        if (scale.dtype not in (uint8, int8) or tuple(scale.shape) != shape or scale.type.layout is None
                or scale.type.layout.mlir_for(shape, scale.dtype) != expected.mlir_for(shape, scale.dtype)):
            raise SemanticError(f"{fname}: {name} must be a {list(shape)} tile of uint8 E8M0 scales (one per 32 k) "
                                f"in the layout get_mfma_scale_layout / get_wmma_scale_layout give for {name[0]}'s "
                                f"DotOperandLayout; got {scale.type}")
        scales.append(cast(scale, int8, bitcast=True))
    operands = [cast(x, int8, bitcast=True) if x.dtype == uint8 else x for x in (a, b)]
    for name, fmt in (("a_format", a_format), ("b_format", b_format)):
        if fmt == "e2m1":
            attrs[name] = '"e2m1"'
    return _emit("tile.dot", [*operands, acc, *scales], acc.type,
                 {"operandSegmentSizes": "array<i32: 1, 1, 1, 1, 1>", **attrs})
