"""`triton.runtime.jit`."""
from rocktile import JITFunction, TensorWrapper, constexpr_function, jit, reinterpret
from rocktile.compat import missing_names
from rocktile.tuning import KernelInterface

__getattr__ = missing_names("triton.runtime.jit", {"KernelParam", "MockTensor", "JITCallable",
                                                   "ConstexprFunction", "DependenciesFinder"})
