"""`triton.compiler`: `compile(ASTSource(fn, signature, constexprs, attrs),
target=GPUTarget("hip", arch, warp_size), options={...})` as Triton takes it,
compiled by rocktile."""
from rocktile import CompilationError, CompiledKernel
from rocktile import compile as _rocktile_compile
from rocktile.compat import missing_names
from rocktile.language.target_info import GPUTarget
from rocktile.launcher import get_target


class ASTSource:
    """A @jit function with Triton's signature ({name: '*fp32', 'i32', ...,
    'constexpr'}), constexprs ({name or (index,): value}) and attrs
    ({(index,): [['tt.divisibility', 16], ['tt.pointer_range', 32]]})."""

    def __init__(self, fn, signature, constexprs=None, attrs=None):
        self.fn, self.signature = fn, dict(signature)
        names = fn.arg_names
        key = lambda k: names[k[0]] if isinstance(k, tuple) else names[k] if isinstance(k, int) else k  # noqa: E731
        self.constexprs = {key(k): v for k, v in (constexprs or {}).items()}
        self.attrs = {key(k): v for k, v in (attrs or {}).items()}

    def rocktile_signature(self):
        """rocktile's signature strings: ':16' for divisibility by 16,
        ':range32' for a 32-bit pointer range."""
        out = {}
        for name, ty in self.signature.items():
            if ty == "constexpr" or name in self.constexprs:
                continue
            attrs = {tuple(a)[0]: tuple(a)[1] for a in self.attrs.get(name, [])}
            out[name] = ty + (":16" if attrs.get("tt.divisibility") == 16 else "") + \
                (":range32" if attrs.get("tt.pointer_range") == 32 and ty.startswith("*") else "")
        return out


def compile(src, target=None, options=None):
    """Compiles `src` (an ASTSource) for `target` (a GPUTarget; the current
    one when None); `options` as Triton's (num_warps, num_stages, ...)."""
    options = dict(options or {})
    arch = target.arch if target is not None else get_target()
    return _rocktile_compile(src.fn, src.rocktile_signature(), src.constexprs, target=arch,
                             num_warps=options.pop("num_warps", 4), **options)


__all__ = ["ASTSource", "CompilationError", "CompiledKernel", "GPUTarget", "compile"]
__getattr__ = missing_names("triton.compiler", {"IRSource", "LazyDict", "get_cache_key", "make_backend",
                                                "max_shared_mem"})
