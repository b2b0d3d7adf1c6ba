// Which adapter carries nodes across which operator change (the changes
// themselves: src/opset/opset_changes_table.inc). A semantic change with no
// row here, or with a null direction, makes the converter refuse the node.
#include <unordered_map>

#include "convert/adapters/adapters.h"
#include "convert/opset_adapter.h"

namespace remap {

Status NoEdit(onnx::NodeProto*, AdapterContext*) { return Status::Ok(); }

const std::vector<OpsetAdapter>& AllAdapters() {
  static const AdapterFn same = IdentityAdapter();
  static const std::vector<OpsetAdapter> table = {
      {"MaxPool", 8, same, MaxPoolIndicesDown, "Indices output (refused when lowered)"},
      {"BatchNormalization", 9, BatchNormSpatialUp, same, "drops spatial=1 (the only form left)"},
      {"Scan", 9, nullptr, nullptr, "batch axis and sequence_lens removed: the body would have to change"},
      {"Upsample", 9, UpsampleScalesUp, UpsampleScalesDown, "scales attribute <-> input"},
      {"Dropout", 10, DropoutMaskUp, DropoutMaskDown, "bool mask, cast to the old mask type"},
      {"Slice", 10, SliceUp, SliceDown, "starts/ends/axes attributes <-> inputs"},
      {"TopK", 10, TopKUp, TopKDown, "k attribute <-> input"},
      {"Upsample", 10, UpsampleToResize, same, "Upsample replaced by Resize"},
      {"Resize", 10, nullptr, ResizeToUpsample, "Resize lowered to Upsample"},
      {"AveragePool", 11, same, same, "SAME_* padding: ceil(in/stride) at every version in practice"},
      {"Gemm", 11, same, GemmBiasDown, "optional C (a zero C when lowered)"},
      {"Clip", 11, ClipUp, ClipDown, "min/max attributes <-> inputs"},
      {"Conv", 11, same, same, "SAME_* padding: ceil(in/stride) at every version in practice"},
      {"ConvTranspose", 11, ConvTransposeSameRefused, ConvTransposeSameRefused, "explicit or VALID padding: unchanged"},
      {"Loop", 11, same, same, "the spec text was rewritten; the same graph runs the same"},
      {"LpPool", 11, same, same, "SAME_* padding: ceil(in/stride) at every version in practice"},
      {"MaxPool", 11, same, same, "SAME_* padding: ceil(in/stride) at every version in practice"},
      {"MaxUnpool", 11, same, same, "text rewording only"},
      {"NonMaxSuppression", 11, same, same, "no change of inputs, attributes or outputs"},
      {"OneHot", 11, OneHotNegativeUp, OneHotNegativeDown, "negative indices mapped to keep their meaning"},
      {"Pad", 11, PadUp, PadDown, "pads/value attributes <-> inputs"},
      {"Resize", 11, Resize11Up, Resize11Down, "roi input and coordinate modes (asymmetric, floor) spelled out"},
      {"Scatter", 11, ScatterToScatterElements, same, "Scatter replaced by ScatterElements"},
      {"ScatterElements", 11, nullptr, ScatterElementsToScatter, "ScatterElements lowered to Scatter"},
      {"Dropout", 12, DropoutRatioUp, DropoutRatioDown, "ratio attribute <-> input"},
      {"Hardmax", 13, SoftmaxAxisUp, SoftmaxAxisDown, "2-D coercion <-> one axis"},
      {"LogSoftmax", 13, SoftmaxAxisUp, SoftmaxAxisDown, "2-D coercion <-> one axis"},
      {"NegativeLogLikelihoodLoss", 13, same, same, "no change of inputs, attributes or outputs"},
      {"ReduceSum", 13, ReduceAxesUp, ReduceAxesDown, "axes attribute <-> input"},
      {"Resize", 13, Resize13Up, Resize13Down, "roi/scales optional"},
      {"Softmax", 13, SoftmaxAxisUp, SoftmaxAxisDown, "2-D coercion <-> one axis"},
      {"Split", 13, SplitToInputUp, SplitToInputDown, "split attribute <-> input"},
      {"Squeeze", 13, AxesToInputUp, AxesToInputDown, "axes attribute <-> input"},
      {"Unsqueeze", 13, AxesToInputUp, AxesToInputDown, "axes attribute <-> input"},
      {"BatchNormalization", 14, BatchNormTrainingUp, BatchNormTrainingDown, "training_mode <-> number of outputs"},
      {"RoiAlign", 16, RoiAlignCoordinatesUp, RoiAlignCoordinatesDown, "coordinate_transformation_mode spelled out"},
      {"ReduceL1", 18, ReduceAxesUp, ReduceAxesDown, "axes attribute <-> input"},
      {"ReduceL2", 18, ReduceAxesUp, ReduceAxesDown, "axes attribute <-> input"},
      {"ReduceLogSum", 18, ReduceAxesUp, ReduceAxesDown, "axes attribute <-> input"},
      {"ReduceLogSumExp", 18, ReduceAxesUp, ReduceAxesDown, "axes attribute <-> input"},
      {"ReduceMax", 18, ReduceAxesUp, ReduceAxesDown, "axes attribute <-> input"},
      {"ReduceMean", 18, ReduceAxesUp, ReduceAxesDown, "axes attribute <-> input"},
      {"ReduceMin", 18, ReduceAxesUp, ReduceAxesDown, "axes attribute <-> input"},
      {"ReduceProd", 18, ReduceAxesUp, ReduceAxesDown, "axes attribute <-> input"},
      {"ReduceSumSquare", 18, ReduceAxesUp, ReduceAxesDown, "axes attribute <-> input"},
      {"Split", 18, SplitNumOutputsUp, SplitNumOutputsDown, "num_outputs <-> equal split"},
      {"AveragePool", 19, same, AveragePoolDilationsDown, "dilations (1 when lowered)"},
      {"DFT", 20, DftAxisUp, DftAxisDown, "axis attribute <-> input, its default spelled out"},
      {"GridSample", 20, GridSampleModesUp, GridSampleModesDown, "mode names"},
      {"GroupNormalization", 21, GroupNormPerChannelUp, GroupNormPerChannelDown, "scale/bias per group <-> per channel"},
  };
  return table;
}

const OpsetAdapter* FindAdapter(const std::string& op_type, int since_version) {
  static const auto index = [] {
    std::unordered_map<std::string, const OpsetAdapter*> built;
    for (const OpsetAdapter& a : AllAdapters()) built[std::string(a.op_type) + "/" + std::to_string(a.since_version)] = &a;
    return built;
  }();
  auto it = index.find(op_type + "/" + std::to_string(since_version));
  return it == index.end() ? nullptr : it->second;
}

}  // namespace remap
