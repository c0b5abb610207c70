"""rocktile-compile: ahead-of-time compilation of one @rocktile.jit kernel
into files a C or C++ program ships.

    rocktile-compile kernels.py:add_kernel --target gfx950,gfx1250 \\
        --signature "x_ptr=*fp32:16,y_ptr=*fp32:16,out_ptr=*fp32:16,n=i32" \\
        --constexpr BLOCK=1024 --num-warps 4 -o out/

writes, for a kernel named NAME (--name, default the function's name):

    NAME.TARGET.hsaco   one code object per target
    NAME.json           the specialization, and per target the code
                        object's resources and kernarg layout
    NAME.h, NAME.c      load_NAME() / unload_NAME() / launch_NAME(stream,
                        gx, gy, gz, args...) over the HIP module API, with
                        the code objects embedded as byte arrays;
                        launch_cooperative_NAME() (every workgroup
                        resident at once) and max_cooperative_grid_NAME()

load_NAME() loads the first embedded code object the current device accepts
(hipModuleLoadData refuses another architecture's), so one binary serves
both chips. launch_NAME() packs the arguments at the offsets the code
object's metadata declares and passes them as HIP's `extra` kernarg buffer.
`--emit tile|simt|llir|amdgcn` writes that stage per target instead.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import sys

from . import compiler, language
from .errors import CompilationError

# The HIP module, memory and device API on the CPU emulator (built with
# rocktile): link an AOT launcher with it to run the kernels without a GPU.
HIP_EMULATOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "librocktile_hip.so")
STAGES = {"tile": "tile.mlir", "simt": "simt.mlir", "llir": "ll", "amdgcn": "s"}
# C types of scalar arguments (16-bit floats as their bits).
C_SCALARS = {"i1": "bool", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
             "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
             "fp16": "uint16_t", "bf16": "uint16_t", "fp32": "float", "fp64": "double"}
C_SIZES = {"bool": 1, "int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
           "float": 4, "int64_t": 8, "uint64_t": 8, "double": 8}


class UsageError(Exception):
    """A bad option: the message names it."""


def parse_signature(text):
    types = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, eq, ty = item.partition("=")
        if not eq or not name.strip() or not ty.strip():
            raise UsageError(f"--signature: expected name=type items separated by commas, got {item!r}")
        types[name.strip()] = ty.strip()
    return types


def parse_constexpr(item):
    name, eq, text = item.partition("=")
    if not eq or not name.strip():
        raise UsageError(f"--constexpr: expected NAME=VALUE, got {item!r}")
    text = text.strip()
    if text.startswith("tl."):
        value = getattr(language, text[3:], None)
        if value is None:
            raise UsageError(f"--constexpr {name}: rocktile.language has no {text[3:]!r}")
        return name.strip(), value
    try:
        return name.strip(), ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return name.strip(), text  # a bare word is a string (ACTIVATION=leaky_relu)


def load_kernel(path_and_name):
    path, colon, name = path_and_name.rpartition(":")
    if not colon or not path or not name:
        raise UsageError(f"the kernel must be given as path/to/file.py:kernel_name, got {path_and_name!r}")
    if not os.path.isfile(path):
        raise UsageError(f"no such file: {path}")
    directory = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, directory)  # the kernel's own imports, as when run as a script
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, name, None)
    while fn is not None and not hasattr(fn, "compile_specialization") and hasattr(fn, "fn"):
        fn = fn.fn  # an @autotune or @heuristics wrapper: the kernel under it
    if not hasattr(fn, "compile_specialization"):
        raise UsageError(f"{path} has no @rocktile.jit function {name!r}")
    return fn


def c_identifier(name):
    if not name.isidentifier() or not name.isascii():
        raise UsageError(f"--name: {name!r} is not a C identifier")
    return name


def kernarg_packing(kernel):
    """C statements writing the launch's arguments into `args` at the slots
    the code object declares (CompiledKernel.kernarg_slots)."""
    lines = []
    for arg, slots in kernel.kernarg_slots():
        if arg.type.is_ptr():
            elt = max(arg.type.element_ty.primitive_bitwidth // 8, 1)
            # A :range32 buffer is under 2 GiB, which bounds its buffer
            # resource; other pointers' size is not read.
            size = (2**31 - 1) // elt
            values = [("uint64_t", f"(uintptr_t){arg.name}")] * 2 + [("int64_t", "0"), ("int64_t", str(size)),
                                                                       ("int64_t", "1")]
        else:
            values = [(C_SCALARS[str(arg).split(":")[0]], arg.name)]
        for slot, (ctype, value) in zip(slots, values):
            if slot["size"] != C_SIZES[ctype]:
                raise CompilationError(f"the code object of {kernel.name} has a {slot['size']}-byte kernarg slot "
                                       f"for {arg.name}'s {ctype} (a rocktile bug)")
            lines.append(f"    {{ {ctype} rt_v = {value}; memcpy(rt_args + {slot['offset']}, &rt_v, sizeof rt_v); }}")
    return lines


# What a kernel's parameter may not be called in the C launcher: C's
# keywords and the launcher's own parameters (its locals start with rt_).
C_RESERVED = set("""auto bool break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void
    volatile while stream gx gy gz""".split())


def check_c_names(spec):
    for name in (arg.name for arg in spec.args):
        if name in C_RESERVED or name.startswith("rt_"):
            raise UsageError(f"the kernel's parameter {name!r} cannot be a parameter of the C launcher (a C keyword "
                             "or one of the launcher's own names); rename it")


def c_parameters(spec):
    params = []
    for arg in spec.args:
        if arg.type.is_ptr():
            params.append(f"void *{arg.name}")
        else:
            params.append(f"{C_SCALARS[str(arg).split(':')[0]]} {arg.name}")
    return params


def write_c(out, name, fn, kernels):
    first = next(iter(kernels.values()))
    params = ", ".join(["hipStream_t stream", "unsigned gx", "unsigned gy", "unsigned gz",
                        *c_parameters(first.specialization)])
    guard = f"ROCKTILE_{name.upper()}_H"
    header = f"""// Generated by rocktile-compile from {fn.__module__}.{fn.__name__}: do not edit.
// Signature {', '.join(f'{k}={v}' for k, v in first.signature.items())}; constexprs {first.constexprs};
// num_warps {first.num_warps}; targets {', '.join(kernels)}.
#ifndef {guard}
#define {guard}
#include <stdbool.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {{
#endif

typedef struct ihipStream_t *hipStream_t;

/* Loads the code object of the current HIP device's architecture. Returns 0
   (hipSuccess), or the HIP error of the last code object tried. */
int load_{name}(void);
/* Unloads it (a later launch loads it again). */
void unload_{name}(void);
/* Launches {fn.__name__} on `stream` with gx x gy x gz workgroups (loading the
   code object first if needed). Pointers are device addresses. Returns 0
   (hipSuccess) or a HIP error. */
int launch_{name}({params});
/* As launch_{name}, with every workgroup resident at once, so that they may
   wait for each other (hipModuleLaunchCooperativeKernel; Triton's
   launch_cooperative_grid=True): a grid larger than the device holds of
   this kernel fails with hipErrorCooperativeLaunchTooLarge. */
int launch_cooperative_{name}({params});
/* The largest grid launch_cooperative_{name} takes on the current device:
   the workgroups of this kernel a compute unit holds at once, times its
   compute units. Returns 0 (hipSuccess) or a HIP error. */
int max_cooperative_grid_{name}(unsigned *workgroups);

#ifdef __cplusplus
}}
#endif
#endif
"""
    images, cases, params_max = [], [], 1
    for i, (target, k) in enumerate(kernels.items()):
        data = ",".join(str(b) for b in k.hsaco)
        images.append(f"static _Alignas(64) const unsigned char image_{target}[{len(k.hsaco)}] = {{{data}}};")
        declared = [slot for slot in k.metadata["kernargs"] if not slot["value_kind"].startswith("hidden_")]
        params_max = max(params_max, len(declared))
        pointers = "\n".join(f"    rt_params[{j}] = rt_args + {slot['offset']};" for j, slot in enumerate(declared))
        cases.append(f"""  case {i}: /* {target} */
{chr(10).join(kernarg_packing(k))}
{pointers}
    return {k.metadata['kernarg_bytes']};""")
    table = ", ".join(f"{{image_{t}, \"{k.name}\", {k.num_warps * k.metadata['wave_size']}}}"
                      for t, k in kernels.items())
    kernarg_max = max(k.metadata["kernarg_bytes"] for k in kernels.values())
    pack_call = ", ".join(["rt_args", "rt_params", *(arg.name for arg in first.specialization.args)])
    launch_call = ", ".join(["stream", "gx", "gy", "gz", *(arg.name for arg in first.specialization.args)])
    pack_params = ", ".join(["unsigned char *rt_args", "void **rt_params", *c_parameters(first.specialization)])
    source = f"""// Generated by rocktile-compile: do not edit.
#include "{name}.h"
#include <stddef.h>
#include <string.h>

/* The HIP API this file uses, as HIP declares it (hipError_t is an enum,
   handles are pointers). */
typedef int hipError_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
hipError_t hipModuleLoadData(hipModule_t *module, const void *image);
hipError_t hipModuleUnload(hipModule_t module);
hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module, const char *name);
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                 unsigned by, unsigned bz, unsigned shared_bytes, hipStream_t stream,
                                 void **kernel_params, void **extra);
hipError_t hipModuleLaunchCooperativeKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                            unsigned by, unsigned bz, unsigned shared_bytes, hipStream_t stream,
                                            void **kernel_params);
hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *workgroups, hipFunction_t f, int block_size,
                                                              size_t shared_bytes);
hipError_t hipGetDevice(int *device);
/* HIP 6's hipGetDeviceProperties, into a hipDeviceProp_t (1472 bytes, its
   multiProcessorCount at byte 388). */
hipError_t hipGetDevicePropertiesR0600(void *properties, int device);
#define ROCKTILE_HIP_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define ROCKTILE_HIP_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)
#define ROCKTILE_HIP_LAUNCH_PARAM_END ((void *)0x03)

{chr(10).join(images)}
static const struct {{ const unsigned char *image; const char *symbol; unsigned threads; }} code_objects[] = {{
    {table}}};

static hipModule_t module;
static hipFunction_t function;
static int loaded = -1; /* the index in code_objects, -1 before load_{name} */

int load_{name}(void) {{
  if (loaded >= 0)
    return 0;
  hipError_t error = 1;
  for (int i = 0; i < (int)(sizeof code_objects / sizeof code_objects[0]); ++i) {{
    if ((error = hipModuleLoadData(&module, code_objects[i].image)) != 0)
      continue; /* another architecture's */
    if ((error = hipModuleGetFunction(&function, module, code_objects[i].symbol)) != 0) {{
      hipModuleUnload(module);
      return error;
    }}
    loaded = i;
    return 0;
  }}
  return error;
}}

void unload_{name}(void) {{
  if (loaded >= 0)
    hipModuleUnload(module);
  loaded = -1;
}}

/* Writes the arguments into `rt_args` at the offsets the loaded code object
   declares, points rt_params[i] at the i-th declared argument's bytes (HIP's
   kernelParams) and returns the kernarg bytes. */
static size_t pack({pack_params}) {{
  memset(rt_args, 0, {kernarg_max});
  switch (loaded) {{
{chr(10).join(cases)}
  }}
  return 0; /* not reached */
}}

/* Launches with every workgroup resident at once if `rt_cooperative`. */
static int launch(int rt_cooperative, {params}) {{
  int rt_error = load_{name}();
  if (rt_error)
    return rt_error;
  _Alignas(16) unsigned char rt_args[{kernarg_max}];
  void *rt_params[{params_max}];
  size_t rt_size = pack({pack_call});
  unsigned rt_threads = code_objects[loaded].threads;
  if (rt_cooperative)
    return hipModuleLaunchCooperativeKernel(function, gx, gy, gz, rt_threads, 1, 1, 0, stream, rt_params);
  void *rt_extra[] = {{ROCKTILE_HIP_LAUNCH_PARAM_BUFFER_POINTER, rt_args, ROCKTILE_HIP_LAUNCH_PARAM_BUFFER_SIZE,
                      &rt_size, ROCKTILE_HIP_LAUNCH_PARAM_END}};
  return hipModuleLaunchKernel(function, gx, gy, gz, rt_threads, 1, 1, 0, stream, 0, rt_extra);
}}

int launch_{name}({params}) {{
  return launch(0, {launch_call});
}}

int launch_cooperative_{name}({params}) {{
  return launch(1, {launch_call});
}}

int max_cooperative_grid_{name}(unsigned *workgroups) {{
  int error = load_{name}(), per_cu = 0, device = 0, cus = 0;
  _Alignas(16) unsigned char properties[1472];
  if (error || (error = hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, function,
                                                                           (int)code_objects[loaded].threads, 0)) ||
      (error = hipGetDevice(&device)) || (error = hipGetDevicePropertiesR0600(properties, device)))
    return error;
  memcpy(&cus, properties + 388, sizeof cus);
  *workgroups = (unsigned)per_cu * (unsigned)cus;
  return 0;
}}
"""
    with open(os.path.join(out, f"{name}.h"), "w") as f:
        f.write(header)
    with open(os.path.join(out, f"{name}.c"), "w") as f:
        f.write(source)


def run(argv=None):
    parser = argparse.ArgumentParser(prog="rocktile-compile", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernel", help="path/to/file.py:kernel_name")
    parser.add_argument("--target", default=compiler.DEFAULT_TARGET,
                        help="comma-separated targets (gfx950, gfx1250); default %(default)s")
    parser.add_argument("--signature", required=True, help='"name=type,..." as rocktile.compile takes them')
    parser.add_argument("--constexpr", action="append", default=[], metavar="NAME=VALUE",
                        help="a tl.constexpr parameter's value (repeat for each)")
    parser.add_argument("--num-warps", type=int, default=4)
    parser.add_argument("--num-stages", type=int, default=None,
                        help="accepted for Triton compatibility (no software pipelining yet)")
    parser.add_argument("--name", help="the name of the files and C functions (default: the kernel's)")
    parser.add_argument("--emit", choices=sorted(STAGES), help="write this stage per target instead")
    parser.add_argument("-o", "--output", required=True, help="output directory")
    args = parser.parse_args(argv)
    try:
        compiler.check_num_warps(args.num_warps)
    except ValueError as e:
        parser.error(f"--num-warps: {e}")
    targets = [t.strip() for t in args.target.split(",") if t.strip()]
    try:
        for t in targets:
            compiler.check_target(t)
    except ValueError as e:
        parser.error(f"--target: {e}")
    try:
        types = parse_signature(args.signature)
        constexprs = dict(parse_constexpr(c) for c in args.constexpr)
        fn = load_kernel(args.kernel)
        name = c_identifier(args.name or fn.__name__)
        if args.num_stages is not None and "num_stages" in fn.arg_names:
            constexprs.setdefault("num_stages", args.num_stages)
        specs = {}
        for t in targets:
            try:
                specs[t] = compiler.make_specialization(fn, types, constexprs, t, args.num_warps)
            except (ValueError, TypeError) as e:
                raise UsageError(f"--signature/--constexpr: {e}") from None
        if not args.emit:
            check_c_names(specs[targets[0]])
    except UsageError as e:
        parser.error(str(e))
    try:
        os.makedirs(args.output, exist_ok=True)
    except OSError as e:
        parser.error(f"-o/--output: cannot create the directory {args.output!r}: {e.strerror}")
    kernels = {t: fn.compile_specialization(spec) for t, spec in specs.items()}
    if args.emit:
        for t, k in kernels.items():
            with open(os.path.join(args.output, f"{name}.{t}.{STAGES[args.emit]}"), "w") as f:
                f.write(k.asm[args.emit])
        return
    description = {"kernel": fn.__name__, "source": args.kernel, "num_warps": args.num_warps,
                   "signature": kernels[targets[0]].signature,
                   "constexprs": {k: repr(v) if not isinstance(v, (bool, int, float, str)) else v
                                  for k, v in kernels[targets[0]].constexprs.items()},
                   "targets": {}}
    for t, k in kernels.items():
        path = f"{name}.{t}.hsaco"
        with open(os.path.join(args.output, path), "wb") as f:
            f.write(k.hsaco)
        metadata = {key: v for key, v in k.metadata.items() if key != "kernargs"}
        description["targets"][t] = {"hsaco": path, "symbol": k.name,
                                     "block": [k.num_warps * k.metadata["wave_size"], 1, 1],
                                     "metadata": metadata, "kernargs": k.metadata["kernargs"]}
    with open(os.path.join(args.output, f"{name}.json"), "w") as f:
        json.dump(description, f, indent=2)
    write_c(args.output, name, fn, kernels)


def main(argv=None):
    try:
        run(argv)
    except CompilationError as e:
        print(str(e), file=sys.stderr)
        sys.exit(1)
    except OSError as e:  # writing the outputs: a full disk, a file removed meanwhile
        print(f"rocktile-compile: cannot write {e.filename or 'the output'}: {e.strerror}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
