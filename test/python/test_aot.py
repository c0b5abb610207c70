"""rocktile-compile (rocktile.aot): the files it writes for a kernel; the C
launcher's ABI, compiled by the system C compiler and linked with a HIP shim
written here that records what the launcher hands to HIP (which code object
it loads, the workgroup size, the kernarg bytes, checked against the code
object's own metadata); and C programs that launch vector add, softmax and a
GEMM through the HIP emulator library on both chips' code objects."""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
import textwrap

import numpy as np
import pytest

import rocktile
from rocktile import aot

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
ADD = os.path.join(EXAMPLES, "vector_add.py") + ":add_kernel"
SIGNATURE = "x_ptr=*fp32:16:range32,y_ptr=*fp32:16,out_ptr=*fp32:16,n_elements=i32:16"
ELF_MACH = {"gfx950": 0x4F, "gfx1250": 0x49}  # EF_AMDGPU_MACH_AMDGCN_*


def compile_add(out, *extra):
    aot.run([ADD, "--target", "gfx950,gfx1250", "--signature", SIGNATURE, "--constexpr", "BLOCK=1024",
             "-o", str(out), *extra])


def test_writes_code_objects_metadata_and_c(tmp_path):
    compile_add(tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["add_kernel.c", "add_kernel.gfx1250.hsaco", "add_kernel.gfx950.hsaco",
                                            "add_kernel.h", "add_kernel.json"]
    sys.path.insert(0, EXAMPLES)
    from vector_add import add_kernel
    described = json.load(open(tmp_path / "add_kernel.json"))
    assert described["signature"]["x_ptr"] == "*fp32:16:range32" and described["constexprs"] == {"BLOCK": 1024}
    for target in ("gfx950", "gfx1250"):
        k = rocktile.compile(add_kernel, {"x_ptr": "*fp32:16:range32", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16",
                                          "n_elements": "i32:16"}, {"BLOCK": 1024}, target=target)
        assert (tmp_path / f"add_kernel.{target}.hsaco").read_bytes() == k.hsaco
        entry = described["targets"][target]
        assert entry["kernargs"] == k.metadata["kernargs"] and entry["symbol"] == k.name
        assert entry["block"] == [4 * k.metadata["wave_size"], 1, 1]
        assert entry["metadata"]["vgpr_count"] == k.metadata["vgpr_count"]


def test_emit_writes_the_stage(tmp_path):
    compile_add(tmp_path, "--emit", "amdgcn", "--name", "vadd")
    assert sorted(os.listdir(tmp_path)) == ["vadd.gfx1250.s", "vadd.gfx950.s"]
    assert "buffer_load_dwordx4" in (tmp_path / "vadd.gfx950.s").read_text()
    assert "buffer_store_b128" in (tmp_path / "vadd.gfx1250.s").read_text()


HIP_SHIM = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Accepts only the code object of $ARCH_MACH's architecture, as a device
   refuses another's, and prints what a launch receives. */
static const unsigned char *loaded_image;
int hipModuleLoadData(void **module, const void *image) {
  uint32_t flags;
  memcpy(&flags, (const unsigned char *)image + 48, 4);
  if ((flags & 0xff) != strtoul(getenv("ARCH_MACH"), 0, 0))
    return 209; /* hipErrorNoBinaryForGpu */
  loaded_image = image;
  *module = (void *)image;
  return 0;
}
int hipModuleUnload(void *module) { (void)module; return 0; }
int hipModuleGetFunction(void **function, void *module, const char *name) {
  printf("symbol %s\n", name);
  *function = module;
  return 0;
}
int hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void *stream, void **params, void **extra) {
  (void)f; (void)stream;
  printf("grid %u %u %u block %u %u %u shared %u params %p\n", gx, gy, gz, bx, by, bz, shared, (void *)params);
  if (extra[0] != (void *)1 || extra[2] != (void *)2 || extra[4] != (void *)3)
    return 1;
  size_t size = *(size_t *)extra[3];
  const unsigned char *bytes = extra[1];
  printf("kernarg");
  for (size_t i = 0; i < size; ++i)
    printf(" %02x", bytes[i]);
  printf("\n");
  return 0;
}
/* Declared by the launcher, not called by this test. */
int hipModuleLaunchCooperativeKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                     unsigned bz, unsigned shared, void *stream, void **params) {
  (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)shared; (void)stream; (void)params;
  return 1;
}
int hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int block, size_t shared) {
  (void)n; (void)f; (void)block; (void)shared;
  return 1;
}
int hipGetDevice(int *device) { *device = 0; return 0; }
int hipGetDevicePropertiesR0600(void *properties, int device) { (void)properties; (void)device; return 1; }
"""

MAIN = r"""
#include "add_kernel.h"
#include <stdio.h>
int main(void) {
  int error = launch_add_kernel(0, 7, 1, 1, (void *)0x1000, (void *)0x2000, (void *)0x3000, 4096);
  printf("error %d\n", error);
  return error;
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
@pytest.mark.parametrize("arch", ["gfx950", "gfx1250"])
def test_c_launcher_packs_kernargs_at_the_metadata_offsets(tmp_path, arch):
    compile_add(tmp_path)
    (tmp_path / "shim.c").write_text(HIP_SHIM)
    (tmp_path / "main.c").write_text(MAIN)
    exe = tmp_path / "launch"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-o", str(exe),
                    str(tmp_path / "main.c"), str(tmp_path / "add_kernel.c"), str(tmp_path / "shim.c")],
                   check=True, capture_output=True, text=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, env=dict(os.environ, ARCH_MACH=str(ELF_MACH[arch])))
    assert run.returncode == 0, run.stdout + run.stderr
    lines = dict(line.split(" ", 1) for line in run.stdout.splitlines())
    entry = json.load(open(tmp_path / "add_kernel.json"))["targets"][arch]
    assert lines["symbol"] == entry["symbol"]
    assert lines["grid"] == f"7 1 1 block {entry['block'][0]} 1 1 shared 0 params (nil)"
    kernarg = bytes(int(b, 16) for b in lines["kernarg"].split())
    assert len(kernarg) == entry["metadata"]["kernarg_bytes"]
    slots = [s for s in entry["kernargs"] if not s["value_kind"].startswith("hidden_")]
    values = [struct.unpack_from({8: "<q", 4: "<i"}[s["size"]], kernarg, s["offset"])[0] for s in slots]
    # Each pointer a memref descriptor (base, aligned base, offset, size in
    # elements, stride), then the scalar.
    descriptor = lambda address: [address, address, 0, (2**31 - 1) // 4, 1]  # noqa: E731
    assert values == descriptor(0x1000) + descriptor(0x2000) + descriptor(0x3000) + [4096]


def write_kernel(tmp_path, body):
    path = tmp_path / "kernels.py"
    path.write_text(textwrap.dedent(body))
    return str(path)


@rocktile.jit
def c_keyword_parameter(x_ptr, long):
    tl.store(x_ptr, long)


@pytest.mark.parametrize("args,message", [
    (["nowhere.py:k", "--signature", "a=i32"], "no such file: nowhere.py"),
    ([ADD, "--signature", "x_ptr"], "--signature: expected name=type items"),
    ([ADD, "--signature", SIGNATURE, "--num-warps", "3"], "--num-warps: num_warps must be a power of 2"),
    ([ADD, "--signature", SIGNATURE, "--target", "gfx90a"], "--target: unknown target 'gfx90a'"),
    ([ADD, "--signature", SIGNATURE], "no value for the constexpr parameter\\(s\\) 'BLOCK'"),
    ([ADD, "--signature", SIGNATURE, "--constexpr", "BLOCK=1024", "--name", "not-c"], "--name: 'not-c' is not a C"),
    ([os.path.join(EXAMPLES, "vector_add.py") + ":compile_add", "--signature", "a=i32"],
     "has no @rocktile.jit function 'compile_add'"),
    ([os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_aot.py") + ":c_keyword_parameter",
      "--signature", "x_ptr=*fp32,long=i32"], "parameter 'long' cannot be a parameter of the C launcher"),
])
def test_bad_options_name_the_option(tmp_path, args, message):
    done = subprocess.run([sys.executable, "-m", "rocktile.aot", *args, "-o", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert re.search(message, done.stderr), done.stderr


def test_an_output_directory_that_cannot_be_made_is_a_usage_error(tmp_path):
    """-o under a regular file printed a traceback: now the option's error, exit 2."""
    (tmp_path / "file").write_text("")
    done = subprocess.run([sys.executable, "-m", "rocktile.aot", ADD, "--signature", SIGNATURE, "--constexpr",
                           "BLOCK=1024", "-o", str(tmp_path / "file" / "out")], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "-o/--output: cannot create the directory" in done.stderr and "Not a directory" in done.stderr


def test_kernel_errors_are_located(tmp_path):
    path = write_kernel(tmp_path, """
        import rocktile
        import rocktile.language as tl

        @rocktile.jit
        def broken(x_ptr):
            tl.store(x_ptr + tl.arange(0, 48), 1.0)
    """)
    done = subprocess.run([sys.executable, "-m", "rocktile.aot", path + ":broken", "--signature", "x_ptr=*fp32",
                           "-o", str(tmp_path / "out")], capture_output=True, text=True)
    assert done.returncode == 1
    assert "kernels.py:7:" in done.stderr and "tile shapes must be powers of two" in done.stderr
    assert "Traceback" not in done.stderr


def test_readme_aot_command_in_a_new_shell(tmp_path):
    """The README's rocktile-compile command, by its name, in a new login
    shell (a newcomer's next terminal), as `make build` left the machine:
    on a pyenv-managed Python the command is reached through a shim that
    `make build` must have made."""
    if not os.path.exists(os.path.join(sysconfig.get_path("scripts"), "rocktile-compile")):
        pytest.skip("rocktile-compile is installed by `make build`")
    root = os.path.abspath(os.path.join(EXAMPLES, ".."))
    readme = open(os.path.join(root, "README.md")).read()
    block = next(b for b in re.findall(r"```sh\n(.*?)```", readme, re.S) if b.startswith("rocktile-compile"))
    command = block.replace("\\\n", " ").strip()
    assert command.endswith(" -o out/"), command
    command = command[:-len("out/")] + str(tmp_path / "out")
    env = {"HOME": os.environ.get("HOME", "/root"), "TERM": "dumb"}
    done = subprocess.run(["bash", "-lc", f"cd {root} && {command}"], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(os.listdir(tmp_path / "out")) == ["add_kernel.c", "add_kernel.gfx1250.hsaco",
                                                    "add_kernel.gfx950.hsaco", "add_kernel.h", "add_kernel.json"]


# --------------------------------------------------------------------------
# End to end on the CPU: C programs built against rocktile-compile's files
# and linked with the HIP emulator library (librocktile_hip.so), which runs
# each launch's kernel in the emulator from the code object it was given.

E2E_MAIN = r"""
#include "{name}.h"
#include <stdio.h>
#include <stdlib.h>
int hipMalloc(void **ptr, size_t bytes);
int hipMemcpy(void *dst, const void *src, size_t bytes, int kind);
int hipFree(void *ptr);
/* Each argument file becomes a device buffer, copied back after the launch. */
int main(int argc, char **argv) {{
  size_t bytes[{n}];
  void *buf[{n}];
  if (argc != {n} + 1)
    return 2;
  for (int i = 0; i < {n}; ++i) {{
    FILE *f = fopen(argv[1 + i], "rb");
    fseek(f, 0, SEEK_END);
    bytes[i] = (size_t)ftell(f);
    rewind(f);
    void *host = malloc(bytes[i]);
    if (fread(host, 1, bytes[i], f) != bytes[i])
      return 2;
    fclose(f);
    hipMalloc(&buf[i], bytes[i]);
    hipMemcpy(buf[i], host, bytes[i], 1 /* host to device */);
    free(host);
  }}
  {{ {before} }}
  int error = {launch};
  for (int i = 0; i < {n}; ++i) {{
    void *host = malloc(bytes[i]);
    hipMemcpy(host, buf[i], bytes[i], 2 /* device to host */);
    FILE *f = fopen(argv[1 + i], "wb");
    fwrite(host, 1, bytes[i], f);
    fclose(f);
    free(host);
    hipFree(buf[i]);
  }}
  return error;
}}
"""


def run_c(tmp_path, kernel, signature, constexprs, launch, arrays, arch, num_warps=4, before=""):
    """Compiles `kernel` ahead of time for both chips, builds a C program
    that runs the C statements `before`, then launches it with `launch` (C,
    over buf[i] = arrays[i] on the device) against the HIP emulator, runs
    it as `arch` and returns the arrays as the kernel left them, and the
    finished program."""
    assert os.path.exists(aot.HIP_EMULATOR), "librocktile_hip.so is built by `make build`"
    out = tmp_path / "aot"
    aot.run([kernel, "--target", "gfx950,gfx1250", "--signature", signature, "--num-warps", str(num_warps), "-o",
             str(out), *[a for k, v in constexprs.items() for a in ("--constexpr", f"{k}={v}")]])
    name = kernel.rpartition(":")[2]
    (out / "main.c").write_text(E2E_MAIN.format(name=name, n=len(arrays), launch=launch, before=before))
    exe = out / "main"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "-o", str(exe), str(out / "main.c"), str(out / f"{name}.c"),
                    aot.HIP_EMULATOR, f"-Wl,-rpath,{os.path.dirname(aot.HIP_EMULATOR)}"],
                   check=True, capture_output=True, text=True)
    paths = []
    for i, a in enumerate(arrays):
        paths.append(out / f"buffer{i}.bin")
        paths[-1].write_bytes(a.tobytes())
    done = subprocess.run([str(exe), *map(str, paths)], capture_output=True, text=True,
                          env=dict(os.environ, ROCKTILE_HIP_ARCH=arch), timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return [np.frombuffer(p.read_bytes(), a.dtype).reshape(a.shape) for p, a in zip(paths, arrays)], done


@pytest.mark.parametrize("arch", ["gfx950", "gfx1250"])
def test_c_vector_add(tmp_path, arch):
    n = 5000
    x, y = np.arange(n, dtype=np.float32), np.arange(n, dtype=np.float32) * 0.5
    (_, _, out), _ = run_c(tmp_path, ADD, "x_ptr=*fp32:16:range32,y_ptr=*fp32:16:range32,out_ptr=*fp32:16:range32,"
                      "n_elements=i32", {"BLOCK": 1024},
                      f"launch_add_kernel(0, {(n + 1023) // 1024}, 1, 1, buf[0], buf[1], buf[2], {n})",
                      [x, y, np.zeros(n, np.float32)], arch)
    np.testing.assert_array_equal(out, x + y)


@pytest.mark.parametrize("arch", ["gfx950", "gfx1250"])
def test_c_softmax(tmp_path, arch):
    rows, cols = 37, 300
    x = np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32)
    (out, _), _ = run_c(tmp_path, os.path.join(EXAMPLES, "softmax.py") + ":softmax_kernel",
                   "out_ptr=*fp32:16,in_ptr=*fp32:16,in_row_stride=i32,out_row_stride=i32,n_cols=i32",
                   {"BLOCK": 512}, f"launch_softmax_kernel(0, {rows}, 1, 1, buf[0], buf[1], {cols}, {cols}, {cols})",
                   [np.zeros_like(x), x], arch)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("arch", ["gfx950", "gfx1250"])
def test_c_gemm(tmp_path, arch):
    import ml_dtypes
    m, n, k = 100, 70, 96  # ragged: masks on every side
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16)
    bias = np.zeros(n, np.float32)
    blocks = {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 4, "HAS_BIAS": False,
              "ACTIVATION": '""'}
    grid = -(-m // 64) * -(-n // 64)
    (_, _, c, _), _ = run_c(tmp_path, os.path.join(EXAMPLES, "matmul.py") + ":matmul_kernel",
                       "a_ptr=*bf16:16,b_ptr=*bf16:16,c_ptr=*fp32:16,bias_ptr=*fp32:16,M=i32,N=i32,K=i32,"
                       "stride_am=i32,stride_ak=i32,stride_bk=i32,stride_bn=i32,stride_cm=i32,stride_cn=i32", blocks,
                       f"launch_matmul_kernel(0, {grid}, 1, 1, buf[0], buf[1], buf[2], buf[3], {m}, {n}, {k}, "
                       f"{k}, 1, {n}, 1, {n}, 1)", [a, b, np.zeros((m, n), np.float32), bias], arch)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * k)


@pytest.mark.parametrize("arch", ["gfx950", "gfx1250"])
def test_c_cooperative_stream_k(tmp_path, arch):
    """examples/stream_k.py from C: launch_cooperative_NAME runs every
    program at once in the emulator (they wait for each other's partial
    tiles); max_cooperative_grid_NAME reports what rocktile.chips computes
    for the kernel, and a grid above it fails as on a GPU. Tolerance: as
    test_residency's stream-K test."""
    import ml_dtypes
    sys.path.insert(0, EXAMPLES)
    import stream_k
    m, n, k, programs = 150, 130, 200, 8
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16)
    signature = ("a_ptr=*bf16:16,b_ptr=*bf16:16,c_ptr=*fp32:16,workspace_ptr=*fp32:16,flags_ptr=*i32:16,M=i32,N=i32,"
                 "K=i32,stride_am=i32,stride_bk=i32,stride_cm=i32")
    blocks = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}
    args = f"buf[0], buf[1], buf[2], buf[3], buf[4], {m}, {n}, {k}, {k}, {n}, {n}"
    before = (f"unsigned most = 0; int error = max_cooperative_grid_stream_k_kernel(&most); "
              f"printf(\"max grid %d %u\\n\", error, most); "
              f"printf(\"too large %d\\n\", launch_cooperative_stream_k_kernel(0, most + 1, 1, 1, {args}));")
    (_, _, c, _, flags), done = run_c(
        tmp_path, stream_k.__file__ + ":stream_k_kernel", signature, blocks,
        f"launch_cooperative_stream_k_kernel(0, {programs}, 1, 1, {args})",
        [a, b, np.zeros((m, n), np.float32), np.zeros((programs, 64, 64), np.float32), np.zeros(programs, np.int32)],
        arch, before=before)
    np.testing.assert_allclose(c, stream_k.reference(a, b), rtol=1e-5, atol=1e-4)
    assert flags.sum() == 6
    kernel = rocktile.compile(stream_k.stream_k_kernel, dict(item.split("=") for item in signature.split(",")), blocks,
                              target=arch)
    most, reason = rocktile.chips.resident_workgroups(kernel)
    assert f"max grid 0 {most}\n" in done.stdout and "too large 720\n" in done.stdout
    assert (f"a grid of {most + 1} workgroups cannot all be resident on {arch}, which holds at most {most} of "
            f"{kernel.name} at once ({reason})") in done.stderr


@pytest.mark.parametrize("arch", ["gfx950", "gfx1250"])
def test_c_decode_megakernel(tmp_path, arch):
    """examples/decode_megakernel.py's persistent kernel from C, through
    launch_cooperative_NAME: the block's output and the KV cache entries it
    writes match numpy's (tolerance: as test_residency's test of it)."""
    sys.path.insert(0, EXAMPLES)
    import decode_megakernel as dm
    batch = 3
    w = dm.make_block(batch, seed=7)
    args, scratch = dm._arguments(w)
    args += [np.zeros(1, np.int32), np.zeros(dm.HKV + 3, np.int32)]
    names = list(dm.decode_block_kernel.arg_names[:len(args)])
    types = {np.dtype(np.float32): "fp32", np.dtype(np.uint8): "u8", np.dtype(np.int32): "i32"}
    signature = ",".join(f"{n}={'*' + types.get(a.dtype, 'bf16')}:16" for n, a in zip(names, args))
    signature += ",batch=i32,sm_scale=fp32"
    buffers = ", ".join(f"buf[{i}]" for i in range(len(args)))
    got, _ = run_c(tmp_path, dm.__file__ + ":decode_block_kernel", signature, dm.CONSTEXPRS,
                   f"launch_cooperative_decode_block_kernel(0, 8, 1, 1, {buffers}, {batch}, {dm.HD ** -0.5}f)",
                   args, arch)
    want, want_cache = dm.reference(w)
    out, kv_cache = got[names.index("out_ptr")], got[names.index("kv_cache_ptr")]
    np.testing.assert_allclose(out, want, rtol=2e-2, atol=2e-2)
    np.testing.assert_array_equal(kv_cache.astype(np.float32), want_cache.astype(np.float32))


MEMCHECK_MAIN = r"""
#include "add_kernel.h"
#include <stdio.h>
#include <stdlib.h>
int hipMalloc(void **ptr, size_t bytes);
int hipMemcpy(void *dst, const void *src, size_t bytes, int kind);
int hipMemset(void *dst, int value, size_t bytes);
int hipFree(void *ptr);
int main(void) {
  void *a, *b, *c;
  float host[256] = {0};
  hipMalloc(&a, 1024);
  hipMalloc(&b, 1024);
  hipMalloc(&c, 1024);
  printf("memcpy %d\n", hipMemcpy(a, host, 1024, 1));
  printf("memcpy past the block %d\n", hipMemcpy(a, host, 1028, 1));
  printf("memcpy to NULL %d\n", hipMemcpy(NULL, host, 16, 1));
  printf("memcpy of kind 77 %d\n", hipMemcpy(a, host, 16, 77));
  printf("memcpy to host memory as the device %d\n", hipMemcpy(host, a, 16, 1));
  printf("memset past the block %d\n", hipMemset(b, 0, 2048));
  printf("memset %d\n", hipMemset(b, 0, 1024));
  printf("launch %d\n", launch_add_kernel(0, 1, 1, 1, a, b, c, 256));
  void *d, *e;
  hipMalloc(&d, 1024);
  hipMalloc(&e, 1024);
  printf("launch reading memory never written %d\n", launch_add_kernel(0, 1, 1, 1, a, d, b, 256));
  hipMemset(d, 0, 512);
  printf("launch reading memory half written %d\n", launch_add_kernel(0, 1, 1, 1, a, d, b, 256));
  printf("launch reading its written half %d\n", launch_add_kernel(0, 1, 1, 1, a, d, b, 128));
  hipMemcpy(e, d, 1024, 3);
  printf("launch reading a copy of it %d\n", launch_add_kernel(0, 1, 1, 1, a, e, b, 256));
  printf("launch writing it %d\n", launch_add_kernel(0, 1, 1, 1, a, b, e, 256));
  printf("launch reading what a kernel wrote %d\n", launch_add_kernel(0, 1, 1, 1, a, e, b, 256));
  printf("launch on NULL %d\n", launch_add_kernel(0, 1, 1, 1, a, b, NULL, 256));
  printf("launch on host memory %d\n", launch_add_kernel(0, 1, 1, 1, a, b, malloc(1024), 256));
  hipFree(c);
  printf("launch on freed memory %d\n", launch_add_kernel(0, 1, 1, 1, a, b, c, 256));
  printf("free twice %d\n", hipFree(c));
  return 0;
}
"""


@pytest.mark.parametrize("arch", ["gfx950", "gfx1250"])
def test_hip_emulator_memcheck(tmp_path, arch):
    """librocktile_hip checks every pointer and size against its hipMalloc
    blocks and returns HIP's error codes (hipErrorInvalidValue 1,
    hipErrorInvalidMemcpyDirection 21, hipErrorLaunchFailure 719 with the
    located access): before, a NULL or freed kernel argument crashed or hung
    the process, memcpy past a block overwrote the host heap, memset past
    one aborted in glibc, a host pointer argument was written unchecked.
    Initcheck: a kernel's read of hipMalloc'd bytes that no copy, memset or
    kernel wrote (a device-to-device copy carries what its source had) is a
    located hipErrorLaunchFailure; before, it read whatever was there."""
    out = tmp_path / "aot"
    aot.run([ADD, "--target", "gfx950,gfx1250", "--signature", "x_ptr=*fp32:16,y_ptr=*fp32:16,out_ptr=*fp32:16,"
             "n_elements=i32", "--constexpr", "BLOCK=1024", "-o", str(out)])
    (out / "main.c").write_text(MEMCHECK_MAIN)
    exe = out / "main"
    subprocess.run(["cc", "-std=c11", "-o", str(exe), str(out / "main.c"), str(out / "add_kernel.c"), aot.HIP_EMULATOR,
                    f"-Wl,-rpath,{os.path.dirname(aot.HIP_EMULATOR)}"], check=True, capture_output=True, text=True)
    done = subprocess.run([str(exe)], capture_output=True, text=True, env=dict(os.environ, ROCKTILE_HIP_ARCH=arch),
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    codes = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    assert codes == {"memcpy": "0", "memcpy past the block": "1", "memcpy to NULL": "1", "memcpy of kind 77": "21",
                     "memcpy to host memory as the device": "1", "memset past the block": "1", "memset": "0",
                     "launch": "0", "launch reading memory never written": "719",
                     "launch reading memory half written": "719", "launch reading its written half": "0",
                     "launch reading a copy of it": "719", "launch writing it": "0",
                     "launch reading what a kernel wrote": "0", "launch on NULL": "719", "launch on host memory": "719",
                     "launch on freed memory": "719", "free twice": "1"}, done.stdout
    for text in ("hipMemcpy of 1028 bytes: the destination reaches 4 bytes past the end of its hipMalloc block",
                 "hipMemcpy: the destination is NULL", "hipMemcpy: 77 is no hipMemcpyKind",
                 "the destination is not memory from hipMalloc", "hipMemset of 2048 bytes",
                 "hipFree: the pointer is not the start of a live hipMalloc block"):
        assert text in done.stderr, done.stderr
    line = next(i for i, t in enumerate(open(os.path.join(EXAMPLES, "vector_add.py")), 1) if "tl.store(" in t)
    assert done.stderr.count(f"vector_add.py:{line}:") == 3, done.stderr  # the three bad launches, located
    assert done.stderr.count(f"vector_add.py:{line - 1}:") == 3, done.stderr  # the three reads of unwritten bytes
    assert "index 0 reads byte 0 of 'argument 1'" in done.stderr and "reads byte 512 of 'argument 1'" in done.stderr
    assert done.stderr.count("which neither the host nor a kernel wrote (uninitialized memory)") == 3
