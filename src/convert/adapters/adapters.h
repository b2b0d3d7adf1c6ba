// Every adapter function; src/convert/adapter_table.cc says which operator
// change each carries a node across.
#pragma once

#include <onnx/onnx_pb.h>

#include "convert/adapter_context.h"
#include "core/status.h"

namespace remap {

#define REMAP_ADAPTER(name) Status name(onnx::NodeProto* node, AdapterContext* ctx)

REMAP_ADAPTER(ReduceAxesUp);
REMAP_ADAPTER(ReduceAxesDown);
REMAP_ADAPTER(AxesToInputUp);
REMAP_ADAPTER(AxesToInputDown);
REMAP_ADAPTER(SplitToInputUp);
REMAP_ADAPTER(SplitToInputDown);
REMAP_ADAPTER(SplitNumOutputsUp);
REMAP_ADAPTER(SplitNumOutputsDown);
REMAP_ADAPTER(SliceUp);
REMAP_ADAPTER(SliceDown);
REMAP_ADAPTER(TopKUp);
REMAP_ADAPTER(TopKDown);
REMAP_ADAPTER(PadUp);
REMAP_ADAPTER(PadDown);
REMAP_ADAPTER(ClipUp);
REMAP_ADAPTER(ClipDown);
REMAP_ADAPTER(UpsampleScalesUp);
REMAP_ADAPTER(UpsampleScalesDown);
REMAP_ADAPTER(UpsampleToResize);
REMAP_ADAPTER(ResizeToUpsample);
REMAP_ADAPTER(Resize11Up);
REMAP_ADAPTER(Resize11Down);
REMAP_ADAPTER(Resize13Up);
REMAP_ADAPTER(Resize13Down);
REMAP_ADAPTER(DropoutMaskUp);
REMAP_ADAPTER(DropoutMaskDown);
REMAP_ADAPTER(DropoutRatioUp);
REMAP_ADAPTER(DropoutRatioDown);
REMAP_ADAPTER(BatchNormSpatialUp);
REMAP_ADAPTER(BatchNormTrainingUp);
REMAP_ADAPTER(BatchNormTrainingDown);
REMAP_ADAPTER(SoftmaxAxisUp);
REMAP_ADAPTER(SoftmaxAxisDown);
REMAP_ADAPTER(OneHotNegativeUp);
REMAP_ADAPTER(OneHotNegativeDown);
REMAP_ADAPTER(ScatterToScatterElements);
REMAP_ADAPTER(ScatterElementsToScatter);
REMAP_ADAPTER(RoiAlignCoordinatesUp);
REMAP_ADAPTER(RoiAlignCoordinatesDown);
REMAP_ADAPTER(GridSampleModesUp);
REMAP_ADAPTER(GridSampleModesDown);
REMAP_ADAPTER(DftAxisUp);
REMAP_ADAPTER(DftAxisDown);
REMAP_ADAPTER(GroupNormPerChannelUp);
REMAP_ADAPTER(GroupNormPerChannelDown);
REMAP_ADAPTER(ConvTransposeSameRefused);
REMAP_ADAPTER(AveragePoolDilationsDown);
REMAP_ADAPTER(MaxPoolIndicesDown);
REMAP_ADAPTER(GemmBiasDown);

#undef REMAP_ADAPTER

}  // namespace remap
