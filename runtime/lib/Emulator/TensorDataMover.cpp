#include "rocktile/Emulator/TensorDataMover.h"
#include "llvm/Support/FormatVariadic.h"

using namespace rocktile::emulator;

namespace {
uint32_t bits(uint32_t word, unsigned lo, unsigned width) {
  return width == 32 ? word >> lo : (word >> lo) & ((uint32_t(1) << width) - 1);
}
} // namespace

TensorDescriptor rocktile::emulator::decodeTensorDescriptor(const std::array<uint32_t, 4> &g0,
                                                            const std::array<uint32_t, 8> &g1) {
  TensorDescriptor d;
  d.valid = bits(g0[0], 0, 2);
  d.ldsAddress = g0[1];
  d.globalAddress = uint64_t(g0[2]) | uint64_t(bits(g0[3], 0, 25)) << 32;
  d.type = bits(g0[3], 30, 2);
  d.workgroupMask = bits(g1[0], 0, 16);
  d.elementBytes = 1u << bits(g1[0], 16, 2);
  d.atomicBarrier = bits(g1[0], 18, 1);
  d.iterate = bits(g1[0], 19, 1);
  d.padEnable = bits(g1[0], 20, 1);
  d.earlyTimeout = bits(g1[0], 21, 1);
  d.padIntervalDwords = 1u << (bits(g1[0], 22, 3) + 1);
  d.padAmountDwords = bits(g1[0], 25, 7) + 1;
  d.barrierAddress = bits(g1[1], 0, 16) << 3;
  d.tensorDim[0] = bits(g1[1], 16, 16) | bits(g1[2], 0, 16) << 16;
  d.tensorDim[1] = bits(g1[2], 16, 16) | bits(g1[3], 0, 16) << 16;
  d.tileDim = {bits(g1[3], 16, 16), bits(g1[4], 0, 16), bits(g1[4], 16, 16)};
  d.stride[0] = uint64_t(g1[5]) | uint64_t(bits(g1[6], 0, 16)) << 32;
  d.stride[1] = uint64_t(bits(g1[6], 16, 16)) | uint64_t(g1[7]) << 16;
  return d;
}

uint64_t TensorDescriptor::ldsOffset(uint64_t index) const {
  uint64_t bytes = index * elementBytes;
  if (!padEnable)
    return bytes;
  return bytes + bytes / (4 * padIntervalDwords) * 4 * padAmountDwords;
}

uint64_t TensorDescriptor::ldsBytes() const {
  uint64_t elements = uint64_t(tileDim[0]) * tileDim[1];
  return elements ? ldsOffset(elements - 1) + elementBytes : 0;
}

std::string rocktile::emulator::checkTensorDescriptor(const TensorDescriptor &d) {
  if (d.type != 2)
    return llvm::formatv("descriptor type {0} (a tensor copy has type 2)", d.type);
  if (d.iterate || d.atomicBarrier || d.workgroupMask)
    return "iterate, atomic-barrier and multicast copies are not emulated";
  if (d.tileDim[2] > 1)
    return llvm::formatv("a 2-D copy with tile_dim2 = {0}", d.tileDim[2]);
  return "";
}
