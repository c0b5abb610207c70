// gfx1250's Tensor Data Mover as the emulator runs it: a descriptor decoded
// from the bits of its groups exactly as ../shared/isa/README.md gives them
// (never from the compiler's structures), and the copy it describes.
#ifndef ROCKTILE_EMULATOR_TENSORDATAMOVER_H
#define ROCKTILE_EMULATOR_TENSORDATAMOVER_H

#include <array>
#include <cstdint>
#include <string>

namespace rocktile::emulator {

/// The fields of a 2-D descriptor (groups 0 and 1, the `.d2` form). Dimension
/// 0 is the innermost; `stride[0]` is the stride between rows (dimension 1),
/// the innermost stride being 1; all in elements.
struct TensorDescriptor {
  unsigned valid = 0, type = 0;
  uint32_t ldsAddress = 0;
  uint64_t globalAddress = 0;
  unsigned workgroupMask = 0, elementBytes = 0;
  bool atomicBarrier = false, iterate = false, padEnable = false, earlyTimeout = false;
  unsigned padIntervalDwords = 0, padAmountDwords = 0; // meaningful when padEnable
  unsigned barrierAddress = 0;                         // bytes
  std::array<uint32_t, 2> tensorDim{};
  std::array<unsigned, 3> tileDim{};
  std::array<uint64_t, 2> stride{};

  /// The byte offset in LDS, from ldsAddress, of element `index` of the tile
  /// in row-major order (padding inserted after every padIntervalDwords).
  uint64_t ldsOffset(uint64_t index) const;
  /// Bytes of LDS the tile spans, padding included.
  uint64_t ldsBytes() const;
};

TensorDescriptor decodeTensorDescriptor(const std::array<uint32_t, 4> &g0, const std::array<uint32_t, 8> &g1);

/// What the emulator supports of a descriptor, or the reason it does not
/// (empty when supported).
std::string checkTensorDescriptor(const TensorDescriptor &d);

} // namespace rocktile::emulator

#endif
