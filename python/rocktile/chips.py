"""What rocktile knows of each chip beyond its instructions: what the HIP
driver reports (triton.runtime.driver's device properties) and how many
workgroups of a kernel it holds resident at once (a cooperative launch's
limit). Each figure names its source; those no table here gives are listed
under "inferred", so that a correction is one edit.

MI355X (gfx950): ROCm's GPU hardware specifications table (256 CUs, 160 KiB
LDS, an 8192-bit HBM bus, 2.4 GHz); CDNA's compute unit of 4 SIMDs, each
holding up to 8 waves and 512 VGPRs per lane (architectural and accumulation
registers together, allocated in granules of 8). MI455X (gfx1250): 320 KiB
of LDS per workgroup from AMD's gfx1250 ISA facts (shared/DESIGN.md); the
rest is inferred from gfx950 (CU count, clocks) or from LLVM's gfx1250
register limit (1024 VGPRs per lane)."""

CHIPS = {
    "gfx950": {"max_shared_mem": 160 * 1024, "multiprocessor_count": 256, "max_num_regs": 512,
               "sm_clock_rate": 2400000, "mem_clock_rate": 8000000, "mem_bus_width": 8192,
               "simds_per_cu": 4, "waves_per_simd": 8, "vgpr_granule": 8,
               "inferred": ("max_num_regs", "mem_clock_rate")},
    "gfx1250": {"max_shared_mem": 320 * 1024, "multiprocessor_count": 256, "max_num_regs": 1024,
                "sm_clock_rate": 2400000, "mem_clock_rate": 10000000, "mem_bus_width": 8192,
                "simds_per_cu": 4, "waves_per_simd": 8, "vgpr_granule": 8,
                "inferred": ("multiprocessor_count", "max_num_regs", "sm_clock_rate", "mem_clock_rate",
                             "mem_bus_width", "simds_per_cu", "waves_per_simd", "vgpr_granule")},
}

# What triton.runtime.driver's get_device_properties reports.
DEVICE_PROPERTY_NAMES = ("max_shared_mem", "multiprocessor_count", "max_num_regs", "sm_clock_rate",
                         "mem_clock_rate", "mem_bus_width", "inferred")


def resident_workgroups(kernel):
    """(how many workgroups of `kernel` its chip holds at once, what limits
    it): per CU, the fewest the SIMDs' wave slots, the register file and the
    LDS allow, times the CUs."""
    chip = CHIPS[kernel.target]
    md = kernel.metadata
    granule = chip["vgpr_granule"]
    registers = -(-((md.get("vgpr_count") or 0) + (md.get("agpr_count") or 0)) // granule) * granule
    waves = chip["waves_per_simd"] if not registers else min(chip["waves_per_simd"],
                                                              chip["max_num_regs"] // registers)
    limits = {f"{waves} waves per SIMD ({registers} registers per lane)":
              chip["simds_per_cu"] * waves // kernel.num_warps}
    if md.get("lds_bytes"):
        limits[f"{md['lds_bytes']} bytes of LDS"] = chip["max_shared_mem"] // md["lds_bytes"]
    reason, per_cu = min(limits.items(), key=lambda item: item[1])
    return per_cu * chip["multiprocessor_count"], f"{per_cu} per CU by {reason}, {chip['multiprocessor_count']} CUs"
