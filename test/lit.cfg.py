# lit configuration: .mlir tests run rocktile-opt, .py tests run kernels
# through the Python front end; both are checked with LLVM 22's FileCheck.
import os
import lit.formats

config.name = "rocktile"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.rocktile_build_dir
# pytest and C++ unit tests have their own runners.
config.excludes = ["python", "unit", "fuzz", "compat", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]

config.environment["PYTHONPATH"] = os.path.join(config.rocktile_src_root, "python")
# The tests check what the compiler emits: never a cached kernel.
config.environment["ROCKTILE_CACHE"] = "0"
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%examples", os.path.join(config.rocktile_src_root, "examples")))
for tool_dir in (*config.rocktile_tools_dirs, config.llvm_tools_dir):
    config.environment["PATH"] = tool_dir + os.pathsep + config.environment.get("PATH", os.environ["PATH"])
