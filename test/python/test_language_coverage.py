"""How much of Triton's language rocktile has: the names of Triton 3.9.0's
`triton.language.__all__` (copied from that release), which of them
rocktile.language has, and that docs/language.md gives a reason for each
missing one. Run with -s to see the coverage."""
import os
import re

import rocktile.language as tl

TRITON_3_9_NAMES = """
PropagateNan TRITON_MAX_TENSOR_NUMEL abs add arange argmax argmin associative_scan assume atomic_add atomic_and
atomic_cas atomic_load atomic_max atomic_min atomic_or atomic_poll atomic_store atomic_xchg atomic_xor bfloat16
bitonic_merge block_type broadcast broadcast_to cast cat cdiv ceil clamp condition const constexpr constexpr_type
cos cumprod cumsum debug_barrier device_assert device_print div_rn dot dot_scaled dtype erf exp exp2 expand_dims
expect_zero extra fdiv flip float16 float32 float64 float8e4b15 float8e4b8 float8e4nv float8e5 float8e5b16 floor
fma full gather histogram inline_asm_elementwise int1 int16 int32 int64 int8 interleave join load
load_tensor_descriptor log log2 make_block_ptr make_tensor_descriptor map_elementwise math max max_constancy
max_contiguous maximum min minimum mul multiple_of num_programs pair_uniform_to_normal permute philox philox_impl
pi32_t pointer_type program_id rand rand4x randint randint4x randn randn4x range ravel reduce reduce_or reshape
rsqrt sigmoid sin slice softmax sort split sqrt sqrt_rn squeeze static_assert static_print static_range store
store_tensor_descriptor sub sum swizzle2d target_info tensor tensor_descriptor to_tensor topk trans tuple uint16
uint32 uint64 uint8 uint_to_uniform_float umulhi unsqueeze view void where xor_sum zeros zeros_like
""".split()

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "language.md")


def test_language_coverage():
    assert len(TRITON_3_9_NAMES) == 146
    missing = [n for n in TRITON_3_9_NAMES if not hasattr(tl, n)]
    have = len(TRITON_3_9_NAMES) - len(missing)
    print(f"\nrocktile.language has {have} of Triton 3.9's {len(TRITON_3_9_NAMES)} names; missing: "
          f"{' '.join(missing)}")
    text = open(DOCS).read()
    section = text[text.index("## Not supported yet"):text.index("## The executable specification")]
    # The names in the first column of its table.
    listed = {name for line in section.splitlines() if line.startswith("| `")
              for name in re.findall(r"`(\w+)`", line.split("|")[1])}
    assert not [n for n in missing if n not in listed], "missing names without a reason in docs/language.md"
    assert not [n for n in listed & set(TRITON_3_9_NAMES) if hasattr(tl, n)], "names listed as missing exist"
    assert set(tl.__all__) >= set(TRITON_3_9_NAMES) - set(missing)  # what exists is exported


# Triton 3.9.0's triton.language.standard (its public functions) and the
# host-side names real projects call (triton, triton.runtime, triton.testing,
# triton.compiler, triton.backends.compiler), which rocktile.compat gives.
TRITON_3_9_STANDARD = """
argmax argmin bitonic_merge cdiv cumprod cumsum flip interleave max min ravel reduce_or sigmoid softmax sort squeeze
sum swizzle2d topk unsqueeze xor_sum zeros zeros_like
""".split()
TRITON_3_9_HOST = {
    "triton": "Config JITFunction OutOfResources TensorWrapper CompilationError TritonError autotune cdiv compile "
              "constexpr_function heuristics jit language must_use_result next_power_of_2 reinterpret "
              "set_allocator testing runtime compiler backends KernelInterface __version__",
    "triton.runtime": "Autotuner Config Heuristics JITFunction KernelInterface OutOfResources TensorWrapper "
                      "autotune autotuner cache driver errors heuristics jit reinterpret",
    "triton.runtime.driver": "active",
    "triton.testing": "Benchmark assert_close do_bench do_bench_cudagraph perf_report",
    "triton.compiler": "ASTSource CompilationError CompiledKernel compile",
    "triton.backends.compiler": "GPUTarget",
}


def test_standard_and_host_coverage():
    import importlib

    import rocktile.compat
    import rocktile.language.standard as standard
    assert [n for n in TRITON_3_9_STANDARD if getattr(standard, n, None) is not getattr(tl, n)] == []
    rocktile.compat.install()
    try:
        missing = [f"{module}.{name}" for module, names in TRITON_3_9_HOST.items() for name in names.split()
                   if isinstance(getattr(importlib.import_module(module), name, None), (type(None),
                                                                                      rocktile.compat.Missing))]
    finally:
        rocktile.compat.uninstall()
    assert missing == []
