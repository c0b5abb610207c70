"""rocktile-compile (rocktile.aot): the files it writes for a kernel, and the
C launcher's ABI: compiled by the system C compiler and linked with a HIP
shim written here that records what the launcher hands to HIP (which code
object it loads, the workgroup size, the kernarg bytes). Running the
launched kernel needs a HIP implementation (a GPU's, or the emulator
library that issue 11 adds); this checks the bytes against the code
object's own metadata."""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
import textwrap

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
    assert "global_store_b128" in (tmp_path / "vadd.gfx1250.s").read_text()


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


@pytest.mark.parametrize("args,message", [
    (["nowhere.py:k", "--signature", "a=i32"], "no such file: nowhere.py"),
    ([ADD, "--signature", "x_ptr"], "--signature: expected name=type items"),
    ([ADD, "--signature", SIGNATURE, "--num-warps", "3"], "--num-warps: num_warps must be a power of two"),
    ([ADD, "--signature", SIGNATURE, "--target", "gfx90a"], "--target: unknown target 'gfx90a'"),
    ([ADD, "--signature", SIGNATURE], "no value for the constexpr parameter\\(s\\) 'BLOCK'"),
    ([ADD, "--signature", SIGNATURE, "--constexpr", "BLOCK=1024", "--name", "not-c"], "--name: 'not-c' is not a C"),
    ([os.path.join(EXAMPLES, "vector_add.py") + ":compile_add", "--signature", "a=i32"],
     "has no @rocktile.jit function 'compile_add'"),
])
def test_bad_options_name_the_option(tmp_path, args, message):
    done = subprocess.run([sys.executable, "-m", "rocktile.aot", *args, "-o", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert re.search(message, done.stderr), done.stderr


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


def test_console_script(tmp_path):
    script = os.path.join(sysconfig.get_path("scripts"), "rocktile-compile")
    if not os.path.exists(script):
        pytest.skip("rocktile-compile is installed by `make build`")
    done = subprocess.run([script, ADD, "--signature", SIGNATURE, "--constexpr", "BLOCK=256", "-o", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "add_kernel.gfx950.hsaco").read_bytes()[:4] == b"\x7fELF"
