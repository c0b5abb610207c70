"""What rocktile knows of each chip beyond its instructions: what the HIP
driver reports (triton.runtime.driver's device properties) and how many
workgroups of a kernel it holds resident at once (a cooperative launch's
limit).

The figures the compiler and the emulator use too (LDS, registers, CUs,
SIMDs and their wave slots) live in the C++ targets
(compiler/lib/Target/*/), each with its source; the HIP emulator library
checks cooperative launches with the same code. The clocks and the memory
bus are the driver's only: MI355X's from ROCm's GPU hardware specifications
table (2.4 GHz, an 8192-bit HBM bus). Figures no table gives are listed
under "inferred", so that a correction is one edit."""
from . import compiler

DRIVER_ONLY = {
    "gfx950": {"sm_clock_rate": 2400000, "mem_clock_rate": 8000000, "mem_bus_width": 8192,
               "inferred": ("max_num_regs", "mem_clock_rate")},
    "gfx1250": {"sm_clock_rate": 2400000, "mem_clock_rate": 10000000, "mem_bus_width": 8192,
                "inferred": ("multiprocessor_count", "max_num_regs", "sm_clock_rate", "mem_clock_rate",
                             "mem_bus_width")},
}


def device_properties(target):
    """What triton.runtime.driver's get_device_properties reports."""
    facts = compiler.load_C().chip_facts(target)
    return {"max_shared_mem": facts["lds_bytes"], "multiprocessor_count": facts["compute_units"],
            "max_num_regs": facts["vgprs_per_simd"], **DRIVER_ONLY[target]}


def resident_workgroups(kernel):
    """(how many workgroups of `kernel` its chip holds at once, what limits
    it): per CU, the fewest the SIMDs' wave slots, the register file and the
    LDS allow, times the CUs."""
    md = kernel.metadata
    registers = (md.get("vgpr_count") or 0) + (md.get("agpr_count") or 0)
    return compiler.load_C().resident_workgroups(kernel.target, registers, md.get("lds_bytes") or 0,
                                                 kernel.num_warps)
