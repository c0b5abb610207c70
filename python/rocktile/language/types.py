"""The types of a kernel's values: scalar dtypes, pointers to global
memory, and tiles (`block_type`), named as in Triton."""
from __future__ import annotations

from ..errors import SemanticError

# --------------------------------------------------------------------------
# dtypes


class dtype:
    """A scalar element type.  Names follow Triton: str(tl.float32) == 'fp32'."""

    # name -> (kind, bit width, MLIR type); int1 counts as unsigned, as in Triton.
    _TABLE = {
        "int1": ("uint", 1, "i1"),
        "int8": ("int", 8, "i8"), "int16": ("int", 16, "i16"),
        "int32": ("int", 32, "i32"), "int64": ("int", 64, "i64"),
        "uint8": ("uint", 8, "i8"), "uint16": ("uint", 16, "i16"),
        "uint32": ("uint", 32, "i32"), "uint64": ("uint", 64, "i64"),
        "fp16": ("float", 16, "f16"), "bf16": ("float", 16, "bf16"),
        "fp32": ("float", 32, "f32"), "fp64": ("float", 64, "f64"),
        # OCP 8-bit floats: e4m3 without infinities ("fn"), and e5m2.
        "fp8e4nv": ("float", 8, "f8E4M3FN"), "fp8e5": ("float", 8, "f8E5M2"),
        # gfx942's 8-bit floats (no negative zero, bias 8 and 16): named, so
        # that code mapping dtypes imports, but no kernel for gfx950 or
        # gfx1250 can use them (see `mlir`).
        "fp8e4b8": ("float", 8, None), "fp8e5b16": ("float", 8, None),
    }
    _MANTISSA = {"fp16": 10, "bf16": 7, "fp32": 23, "fp64": 52, "fp8e4nv": 3, "fp8e5": 2, "fp8e4b8": 3, "fp8e5b16": 2}
    # The names of each class, as Triton's dtype lists them (of the types rocktile has).
    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = ["fp8e4nv", "fp8e5", "fp16", "bf16", "fp32", "fp64"]
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]

    def __init__(self, name: str):
        if name not in self._TABLE:
            raise ValueError(f"unknown dtype '{name}'")
        self.name = name
        self._kind, self.primitive_bitwidth, self._mlir = self._TABLE[name]

    # Classification, named as in Triton.
    def is_floating(self): return self._kind == "float"
    def is_int(self): return self._kind in ("int", "uint")
    def is_int_signed(self): return self._kind == "int"
    def is_int_unsigned(self): return self._kind == "uint"
    def is_bool(self): return self.name == "int1"
    def is_fp16(self): return self.name == "fp16"
    def is_bf16(self): return self.name == "bf16"
    def is_fp32(self): return self.name == "fp32"
    def is_fp64(self): return self.name == "fp64"
    def is_half(self): return self.name in ("fp16", "bf16")
    def is_fp8(self): return self.name in ("fp8e4nv", "fp8e5")
    def is_fp8e4nv(self): return self.name == "fp8e4nv"
    def is_fp8e5(self): return self.name == "fp8e5"
    def is_ptr(self): return False
    def is_block(self): return False

    @property
    def int_bitwidth(self): return self.primitive_bitwidth

    @property
    def storage(self):
        """The type of this dtype in memory: int1 is stored as a byte."""
        return int8 if self.name == "int1" else self

    @property
    def fp_mantissa_width(self): return self._MANTISSA[self.name]

    @property
    def scalar(self): return self

    @property
    def mlir(self) -> str:
        """The MLIR spelling of this type, e.g. 'f32'."""
        if self._mlir is None:
            raise SemanticError(f"tl.{_PUBLIC_NAME[self.name]} is the 8-bit float of gfx942 (MI300); gfx950 and "
                                "gfx1250 have the OCP formats, tl.float8e4nv and tl.float8e5")
        return self._mlir

    def __eq__(self, other): return type(other) is type(self) and other.name == self.name
    def __hash__(self): return hash((type(self).__name__, self.name))
    def __str__(self): return self.name
    def __repr__(self): return f"rocktile.language.{_PUBLIC_NAME.get(self.name, self.name)}"


class pointer_type(dtype):
    """A pointer to global memory holding `element_ty` values."""

    def __init__(self, element_ty: dtype):
        if not isinstance(element_ty, dtype) or element_ty.is_ptr() or element_ty.is_block():
            raise TypeError(f"pointer_type needs a scalar dtype, got {element_ty!r}")
        self.element_ty = element_ty
        self.name = f"pointer<{element_ty.name}>"
        self.primitive_bitwidth = 64

    def is_floating(self): return False
    def is_int(self): return False
    def is_int_signed(self): return False
    def is_int_unsigned(self): return False
    def is_bool(self): return False
    def is_half(self): return False
    def is_fp8(self): return False
    def is_ptr(self): return True

    @property
    def mlir(self) -> str:
        # Booleans live in memory as bytes, as in Triton; load/store convert.
        return f"!tile.ptr<{self.element_ty.storage.mlir}>"

    def __eq__(self, other): return isinstance(other, pointer_type) and other.element_ty == self.element_ty
    def __hash__(self): return hash(("pointer", self.element_ty))
    def __repr__(self): return f"pointer_type({self.element_ty!r})"


class shape_tuple(tuple):
    """A tile's shape: a tuple of ints that also equals a list of them, as
    Triton's tuples do (`tl.static_assert(x.shape == [N])`). At the explicit
    level (rocktile.gluon) it also carries the tile's `layout`, so that what
    is built in the shape of a tile (a splat, a broadcast, a cast) is built
    in its layout too; None in the tile language, where the compiler
    chooses layouts."""

    def __new__(cls, dims, layout=None):
        self = super().__new__(cls, dims)
        self.layout = layout
        return self

    def __eq__(self, other):
        return tuple(self) == tuple(other) if isinstance(other, (list, tuple)) else NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__


class block_type(dtype):
    """The type of a tile: a shape and a scalar (or pointer) element type,
    and at the explicit level its layout (by default the one `shape`
    carries, see shape_tuple)."""

    def __init__(self, element_ty: dtype, shape, layout=None):
        self.element_ty = element_ty
        self.layout = layout if layout is not None else getattr(shape, "layout", None)
        self.shape = shape_tuple((int(d) for d in shape), self.layout)
        self.numel = 1
        for d in self.shape:
            self.numel *= d
        self.name = f"<{list(self.shape)}, {element_ty.name}>"

    def is_block(self): return True
    def is_ptr(self): return False
    def is_floating(self): return False
    def is_int(self): return False

    @property
    def scalar(self): return self.element_ty

    def get_block_shapes(self): return self.shape

    def with_element_ty(self, scalar_ty): return block_type(scalar_ty, self.shape)

    def with_layout(self, layout): return block_type(self.element_ty, tuple(self.shape), layout)

    @property
    def nbytes(self): return self.numel * (self.element_ty.primitive_bitwidth // 8)

    @property
    def mlir(self) -> str:
        encoding = f", {self.layout.mlir_for(self.shape, self.element_ty)}" if self.layout is not None else ""
        return f"tensor<{'x'.join(map(str, self.shape))}x{self.element_ty.mlir}{encoding}>"

    def __eq__(self, other):
        return isinstance(other, block_type) and ((other.element_ty, other.shape, other.layout) ==
                                                  (self.element_ty, self.shape, self.layout))
    def __hash__(self): return hash(("block", self.element_ty, self.shape))

    def __repr__(self):
        layout = f", {self.layout!r}" if self.layout is not None else ""
        return f"block_type({self.element_ty!r}, {list(self.shape)}{layout})"


int1 = dtype("int1")
int8, int16, int32, int64 = (dtype(f"int{w}") for w in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (dtype(f"uint{w}") for w in (8, 16, 32, 64))
float16, bfloat16, float32, float64 = dtype("fp16"), dtype("bf16"), dtype("fp32"), dtype("fp64")
float8e4nv, float8e5 = dtype("fp8e4nv"), dtype("fp8e5")
float8e4b8, float8e5b16 = dtype("fp8e4b8"), dtype("fp8e5b16")

_PUBLIC_NAME = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
                "fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp8e4b8": "float8e4b8", "fp8e5b16": "float8e5b16"}
