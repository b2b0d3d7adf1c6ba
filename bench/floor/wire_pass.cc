// What a rewrite would pay if it left untouched nodes as the bytes they are
// (docs/performance.md, "What 1.2x takes"): a sizing tool for that design,
// run on demand, not a floor the tool is held to.
//   wire_pass IN.onnx OUT.onnx
// It reads the whole file, walks the main graph's node records at the wire
// level, taking each node's op_type, domain, inputs and outputs as views of
// the file's bytes (no allocation per node), checks what the loader's
// structure check checks of them (every input defined before its use, every
// output written once) in one table of names, counts the ATen nodes a
// rewrite would parse, and writes the bytes to OUT unchanged. Subgraphs and
// attributes are skipped, as such a rewrite would skip them in nodes no rule
// matches. Prints the node and ATen counts.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/name_table.h"
#include "model/wire_format_scan.h"
#include "../whole_file.h"

namespace {

using remap::WireField;

// Field numbers of onnx.proto.
constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphNode = 1, kGraphInitializer = 5, kGraphInput = 11;
constexpr uint32_t kNodeInput = 1, kNodeOutput = 2, kNodeOpType = 4;
constexpr uint32_t kTensorName = 8, kValueInfoName = 1;

struct Walk {
  const std::string& bytes;
  remap::NameTable<bool> defined;
  std::vector<std::string_view> inputs;  // one node's, reused
  size_t nodes = 0, aten = 0;

  std::string_view View(const WireField& f) const {
    return std::string_view(bytes.data() + f.payload_start, f.end - f.payload_start);
  }

  // The string field `number` of the message at [begin, end), or "".
  bool StringField(size_t begin, size_t end, uint32_t number, std::string_view* out) const {
    WireField f;
    for (size_t at = begin; at < end; at = f.end) {
      if (!remap::ReadWireField(bytes.data(), at, end, &f)) return false;
      if (f.number == number && f.wire_type == 2) *out = View(f);
    }
    return true;
  }

  bool Node(size_t begin, size_t end) {
    ++nodes;
    inputs.clear();
    std::string_view op_type;
    WireField f;
    for (size_t at = begin; at < end; at = f.end) {
      if (!remap::ReadWireField(bytes.data(), at, end, &f)) return false;
      if (f.wire_type != 2) continue;
      if (f.number == kNodeInput) {
        inputs.push_back(View(f));
      } else if (f.number == kNodeOutput && f.end > f.payload_start) {
        bool& written = defined.FindOrInsert(View(f)).value;
        if (written) {
          std::cerr << "wire_pass: '" << View(f) << "' is written twice\n";
          return false;
        }
        written = true;
      } else if (f.number == kNodeOpType) {
        op_type = View(f);
      }
    }
    for (std::string_view in : inputs) {
      const auto* item = in.empty() ? nullptr : defined.Find(in);
      if (!in.empty() && (!item || !item->value)) {
        std::cerr << "wire_pass: '" << in << "' is read before it is written\n";
        return false;
      }
    }
    if (op_type == "ATen") ++aten;
    return true;
  }

  // Inputs and initializers first: protobuf writes fields in number order,
  // so a graph's node records come before its inputs. The table is sized for
  // one output per node, as the tool's index is sized up front.
  bool Graph(size_t begin, size_t end) {
    WireField f;
    size_t values = 0;
    for (size_t at = begin; at < end; at = f.end) {
      if (!remap::ReadWireField(bytes.data(), at, end, &f)) return false;
      if (f.wire_type == 2 && f.number == kGraphNode) ++values;
    }
    defined.Reserve(values);
    for (size_t at = begin; at < end; at = f.end) {
      if (!remap::ReadWireField(bytes.data(), at, end, &f)) return false;
      if (f.wire_type != 2 || (f.number != kGraphInput && f.number != kGraphInitializer)) continue;
      std::string_view name;
      if (!StringField(f.payload_start, f.end, f.number == kGraphInput ? kValueInfoName : kTensorName, &name))
        return false;
      defined.FindOrInsert(name).value = true;
    }
    for (size_t at = begin; at < end; at = f.end) {
      if (!remap::ReadWireField(bytes.data(), at, end, &f)) return false;
      if (f.wire_type == 2 && f.number == kGraphNode && !Node(f.payload_start, f.end)) return false;
    }
    return true;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: wire_pass IN.onnx OUT.onnx\n";
    return 2;
  }
  std::string bytes;
  if (!ReadWholeFile(argv[1], &bytes)) {
    std::cerr << "wire_pass: error: " << argv[1] << ": cannot read\n";
    return 3;
  }
  Walk walk{bytes, {}, {}, 0, 0};
  WireField f;
  bool ok = true;
  for (size_t at = 0; ok && at < bytes.size(); at = f.end) {
    ok = remap::ReadWireField(bytes.data(), at, bytes.size(), &f);
    if (ok && f.number == kModelGraph && f.wire_type == 2) ok = walk.Graph(f.payload_start, f.end);
  }
  if (!ok) {
    std::cerr << "wire_pass: error: " << argv[1] << ": not a model this walk reads\n";
    return 3;
  }
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  if (!out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) || !out.flush()) {
    std::cerr << "wire_pass: error: " << argv[2] << ": cannot write\n";
    return 6;
  }
  std::printf("%zu nodes, %zu ATen\n", walk.nodes, walk.aten);
  return 0;
}
