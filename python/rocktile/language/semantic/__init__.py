"""Type checking, promotion and IR building behind rocktile.language.

The public functions in `core` call into this package with plain Python
values and `tensor` proxies.  Each function checks its operands, applies
Triton's promotion and broadcasting rules, and appends ops (tile dialect and
upstream arith/math) to the kernel being traced.  User mistakes raise
`SemanticError`; the JIT reports them at the kernel line that caused them.

The modules build on each other in this order, each importing only those
before it: tracing (the IR builder, constexprs, tensors), conversions,
layouts, shapes, promotion, arithmetic, memory, reductions, atomics, dots, shared.  This
package gives them one namespace and binds Python's operators on tensors,
which reach across all of them.
"""
from ...errors import SemanticError
from ..types import float32
from .tracing import (IRBuilder, Unbound, _is_constexpr_annotation, _unwrap, constexpr, current, is_tracing, tensor,
                      tracing)
from .conversions import _emit, _is_number, _value, cast, constant, constant_tensor, python_dtype, to_tensor
from .shapes import (MAX_NUMEL, broadcast_shapes, broadcast_to, check_shape, convert_layout, expand_dims, permute,
                     reshape, splat, subscript, trans)
from .promotion import _is_ptr, _narrow_float, _operands, computation_type
from .arithmetic import (abs_, add, addptr, and_, equal, exp, float_div, float_math, float_math2, floating_operand,
                         floordiv, fma, greater, greater_equal, inline_asm_elementwise, invert, less, less_equal,
                         maximum, minimum, mod, mul, neg, not_equal, or_, pos, shl, shr, sigmoid, sub, truediv,
                         umulhi, where, xor)
from .memory import arange, full, load, num_programs, program_id, store
from .reductions import (KernelFunction, arg_reduce, bitonic_merge, cumulative, flip, gather, join, map_elementwise,
                         reduce, reduce_minmax, sort, split, sum_, topk, user_reduce, user_scan)
from .atomics import atomic_cas, atomic_load, atomic_poll, atomic_rmw, atomic_store, debug_barrier
from .dots import dot, matrix_product, scaled_dot, scaled_matrix_product, scaled_upcast
from . import shared


# Python's operators on tensors build IR through the functions above. (Bound
# after the class is made, `==` leaves tensors hashable by identity, as keys.)
def _binary(fn, reflected=False):
    if reflected:
        return lambda self, other: fn(other, self)
    return lambda self, other: fn(self, other)


for _name, _fn in [("add", add), ("sub", sub), ("mul", mul), ("truediv", truediv), ("floordiv", floordiv),
                   ("mod", mod), ("and", and_), ("or", or_), ("xor", xor), ("lshift", shl), ("rshift", shr),
                   ("matmul", lambda a, b: dot(a, b, None, None, None, None, float32))]:
    setattr(tensor, f"__{_name}__", _binary(_fn))
    setattr(tensor, f"__r{_name}__", _binary(_fn, reflected=True))
for _name, _fn in [("lt", less), ("le", less_equal), ("gt", greater), ("ge", greater_equal), ("eq", equal),
                   ("ne", not_equal), ("getitem", subscript)]:
    setattr(tensor, f"__{_name}__", _binary(_fn))
for _name, _fn in [("neg", neg), ("pos", pos), ("invert", invert)]:
    setattr(tensor, f"__{_name}__", _fn)
del _name, _fn
