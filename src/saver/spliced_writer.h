// Saves a model loaded by LoadModelSpliced: serializes what is in memory and
// puts each left-out raw_data back at its place in the stream, copied from
// the input file to the output with copy_file_range (kernel to kernel: the
// weights never pass through this process's memory). The bytes written are
// the bytes SaveModel writes for the same model with its data in place:
// protobuf writes known fields in field-number order, so raw_data (field 9)
// goes before the first field above 9, and the length prefixes of the
// initializer and of the graph grow by what is put back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/status.h"
#include "model/spliced_source.h"
#include "saver/model_saver.h"

namespace remap {

// `spliced` comes from TakeSplicedMarks (those initializers have no raw_data
// in `model`); `source_fd` is the input file. `copied`, when given, receives
// the bytes copied file to file. `options`: as for SaveModel.
Status SaveModelSpliced(const onnx::ModelProto& model, const std::vector<SplicedInitializer>& spliced, int source_fd,
                        const std::string& path, uint64_t* copied = nullptr, const SaveOptions& options = {});

}  // namespace remap
