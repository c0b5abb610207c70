"""`triton.runtime.jit`."""
from rocktile import JITFunction, TensorWrapper, constexpr_function, jit, reinterpret
from rocktile.compat import missing_names

__getattr__ = missing_names("triton.runtime.jit", {"KernelInterface", "KernelParam", "MockTensor", "JITCallable",
                                                   "ConstexprFunction", "DependenciesFinder"})
