"""A compiled kernel: its code, its code object's metadata, and the ways to
run it (the emulator, `kernel[grid](*args)`)."""
from __future__ import annotations

import os

from . import compiler
from .compiler import Specialization
from .errors import CompilationError, error_from_compile_error
from .launcher import CompiledLauncher


class KernelMetadata(dict):
    """A compiled kernel's metadata: a dict, also read by attribute, as
    Triton's (`kernel.metadata.shared`, its LDS bytes, in ported host code)."""
    _ALIASES = {"shared": "lds_bytes"}

    def __getattr__(self, name):
        try:
            return self[self._ALIASES.get(name, name)]
        except KeyError:
            raise AttributeError(f"the kernel's metadata has no {name!r}; it has {', '.join(self)}, "
                                 f"and {', '.join(self._ALIASES)}") from None


class CompiledKernel:
    """A compiled kernel: `.asm` ('tile', 'simt', 'llir', 'amdgcn' texts),
    `.hsaco` (the code object) and `.metadata` (register and memory use).

    A kernel compiled for a launch in the emulator stops at its SIMT program
    (`hsaco` None): the code object, its assembly and its metadata are made
    from it when first asked for, since the emulator runs the SIMT program
    and most of a compile's time is LLVM's code generation."""

    def __init__(self, name, spec: Specialization, asm: dict, hsaco: bytes | None, metadata: dict,
                 simt_with_locations: str = "", emulator_only: bool = False):
        self.name = name
        self.target = spec.target
        self.num_warps = spec.num_warps
        self.signature = spec.signature
        self.constexprs = dict(spec.constexprs)
        self.specialization = spec
        self._asm = asm
        self._hsaco = hsaco
        self._metadata = KernelMetadata(metadata)
        self._wave_size, self._lds_banks = metadata["wave_size"], metadata["lds_banks"]
        self._simt_with_locations = simt_with_locations
        # Uses what only the emulator runs: no LLVM IR, assembly or code object.
        self.emulator_only = emulator_only
        self._emulators = {}
        # Called with the kernel once its code object is made later
        # (JITFunction's keeps it in the compile cache too).
        self.on_code_object = None
        # The arguments a Triton-style launch passes: the parameters that are
        # not declared constexprs (JITFunction fills it in; runtime ones here).
        self.launch_params = [a.name for a in spec.args]

    @property
    def code_object_pending(self):
        """Whether the code object is still to be made from the SIMT program."""
        return self._hsaco is None

    def make_code_object(self):
        """Makes the code object now, if it is still to be made."""
        if self._hsaco is not None:
            return
        C = compiler.load_C()
        try:
            out = C.emit_code_object(self._simt_with_locations, self.target, self.num_warps)
        except C.CompileError as e:
            raise error_from_compile_error(str(e), {}) from None
        self._asm.update((stage, out[stage]) for stage in ("llir", "amdgcn"))
        metadata = dict(out["metadata"])
        metadata.update(name=self.name, target=self.target, num_warps=self.num_warps)
        self._metadata = KernelMetadata(metadata)
        self._hsaco = bytes(out["hsaco"])
        if self.on_code_object:
            self.on_code_object(self)

    @property
    def hsaco(self):
        self.make_code_object()
        return self._hsaco

    @property
    def asm(self):
        self.make_code_object()
        return self._asm

    @property
    def metadata(self):
        self.make_code_object()
        return self._metadata

    def emulator(self):
        """The kernel JIT-compiled for the CPU emulator (built on first use),
        for this machine's CPU or the one ROCKTILE_EMULATOR_HOST_CPU names
        (`x86-64`, the baseline without F16C or AVX-512 BF16, makes the host
        code call the emulator's own fp16/bf16 conversion builtins)."""
        cpu = os.environ.get("ROCKTILE_EMULATOR_HOST_CPU", "")
        if cpu not in self._emulators:
            C = compiler.load_C()
            try:
                self._emulators[cpu] = C.Emulator(self._simt_with_locations, self._wave_size, self._lds_banks, cpu)
            except C.CompileError as e:
                raise CompilationError(f"the emulator cannot run kernel {self.name}: {e}") from None
        return self._emulators[cpu]

    def lds_bank_conflicts(self):
        """The LDS accesses of the last emulator launch, by source line and
        kind: {(location, 'load' | 'store'): (wave accesses, extra cycles)},
        the cycles that bank conflicts added (from the target's banks)."""
        totals = {}
        for site in self.emulator().bank_conflicts():
            key = (site["location"], site["kind"])
            runs, extra = totals.get(key, (0, 0))
            totals[key] = (runs + site["executions"], extra + site["extra_cycles"])
        return totals

    def global_memory_traffic(self):
        """The global memory the last emulator launch accessed, per pointer
        argument: {name: {"read", "written", "atomic"}: bytes}, each lane's
        access counted (a value several lanes read counts for each)."""
        traffic = self.emulator().global_traffic()
        return {arg.name: dict(zip(("read", "written", "atomic"), traffic[i]))
                for i, arg in enumerate(self.specialization.args) if arg.type.is_ptr()}

    def kernarg_slots(self):
        """Per runtime argument, in order: (its ArgSpec, the kernarg slots
        the code object declares for it, as metadata["kernargs"] gives
        them): five for a pointer, a memref descriptor (base, aligned base,
        offset, size, stride), one for a scalar. Hidden slots are left out."""
        slots = [s for s in self.metadata["kernargs"] if not s["value_kind"].startswith("hidden_")]
        out = []
        for arg in self.specialization.args:
            count = 5 if arg.type.is_ptr() else 1
            out.append((arg, slots[:count]))
            if len(slots) < count:
                raise CompilationError(f"the code object of {self.name} declares fewer kernarg slots than its "
                                       "arguments need (a rocktile bug)")
            slots = slots[count:]
        if slots:
            raise CompilationError(f"the code object of {self.name} declares more kernarg slots than its "
                                   "arguments fill (a rocktile bug)")
        return out

    def _init_handles(self):
        """Triton loads the code object onto the device here; rocktile loads it
        at the first launch, so there is nothing to do ahead of it."""

    def __getitem__(self, grid):
        """`kernel[grid](*args)` launches with the runtime arguments, checked
        against the signature (rocktile.launcher.CompiledLauncher)."""
        return CompiledLauncher(self, grid)

    @property
    def n_regs(self):
        return self.metadata.get("vgpr_count")

    @property
    def n_spills(self):
        return self.metadata.get("vgpr_spill_count", 0) + self.metadata.get("sgpr_spill_count", 0)

    def __repr__(self):
        m = self.metadata
        return (f"<CompiledKernel {self.name} for {self.target}, num_warps={self.num_warps}: "
                f"{m.get('vgpr_count')} VGPRs, {m.get('sgpr_count')} SGPRs, {m.get('lds_bytes')} B LDS>")
