// NodeListEditor: staged replacements of a node list, committed in one pass.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "rewrite/node_list_editor.h"

using remap::NodeListEditor;

namespace {

onnx::NodeProto Named(const std::string& name) {
  onnx::NodeProto n;
  n.set_name(name);
  return n;
}

std::vector<std::string> Names(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes) {
  std::vector<std::string> out;
  for (const auto& n : nodes) out.push_back(n.name());
  return out;
}

}  // namespace

TEST_CASE("replacements take their node's place, in any order of the calls", "[editor]") {
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (const char* name : {"a", "b", "c", "d", "e"}) *nodes.Add() = Named(name);
  NodeListEditor editor(&nodes);
  editor.Replace(3, {Named("d1"), Named("d2")});
  editor.Replace(1, {Named("b1")});
  editor.Replace(4, {});  // removed
  editor.Replace(1, {Named("b2")});  // the later replacement of b wins
  CHECK_FALSE(editor.empty());
  // Replaced nodes are emptied at once (their memory freed), others untouched.
  REQUIRE(nodes.size() == 5);
  CHECK(nodes.Get(1).ByteSizeLong() == 0);
  CHECK(nodes.Get(3).ByteSizeLong() == 0);
  CHECK(nodes.Get(4).ByteSizeLong() == 0);
  CHECK(nodes.Get(2).name() == "c");
  std::vector<const onnx::NodeProto*> added;
  editor.Commit(&added);
  CHECK(Names(nodes) == std::vector<std::string>{"a", "b2", "c", "d1", "d2"});
  REQUIRE(added.size() == 3);
  CHECK(added[0] == &nodes.Get(1));
  CHECK(added[2] == &nodes.Get(4));
  CHECK(editor.empty());
}

TEST_CASE("a list without edits is left as it is", "[editor]") {
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (const char* name : {"a", "b"}) *nodes.Add() = Named(name);
  const onnx::NodeProto* first = &nodes.Get(0);
  NodeListEditor editor(&nodes);
  editor.Commit();
  CHECK(Names(nodes) == std::vector<std::string>{"a", "b"});
  CHECK(&nodes.Get(0) == first);
}

TEST_CASE("one-for-one replacements take their placeholders, the others staying where they are", "[editor]") {
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (const char* name : {"a", "b", "c", "d"}) *nodes.Add() = Named(name);
  const onnx::NodeProto* a = &nodes.Get(0);
  const onnx::NodeProto* b = &nodes.Get(1);
  const onnx::NodeProto* c = &nodes.Get(2);
  NodeListEditor editor(&nodes);
  editor.Replace(1, {Named("b1")});
  editor.Replace(3, {Named("d1")});
  std::vector<const onnx::NodeProto*> added;
  editor.Commit(&added);
  CHECK(Names(nodes) == std::vector<std::string>{"a", "b1", "c", "d1"});
  // Not rebuilt: every node is the object it was, the replaced ones refilled.
  CHECK(&nodes.Get(0) == a);
  CHECK(&nodes.Get(1) == b);
  CHECK(&nodes.Get(2) == c);
  REQUIRE(added.size() == 2);
  CHECK(added[0] == &nodes.Get(1));
  CHECK(added[1] == &nodes.Get(3));
  CHECK(editor.empty());
}
