// Whether the files onnx-remap writes reach the disk before they get their
// names. Syncing waits for the disk, which for a model with gigabytes of
// weights takes as long as the copy itself or longer (writeback_pacer.h
// overlaps the two), and buys nothing where the output is rebuilt anyway
// after a crash (a CI step, a scratch folder, tmpfs).
#pragma once

namespace remap {

enum class Durability {
  // fsync of the file before it is named, and of its folder after: after a
  // crash or a power loss the path holds the old content or the new.
  kSynced,
  // No fsync. Readers still see the old file or the new one, and a killed
  // process leaves no file behind; only a power loss or a kernel crash soon
  // after may leave the new name with missing or zeroed data.
  kUnsynced,
};

}  // namespace remap
