// What one instantiation of a replacement asked the graph index for: the
// fresh node and value names, in order. A memo of the replacement
// (match/replacement_memo.h) makes the same requests for the next node it
// rewrites alike, so that node gets the names a fresh instantiation would.
#pragma once

#include <string>
#include <vector>

namespace remap {

struct FreshNameRequest {
  bool node_name = false;  // a node name, else a value name
  std::string suffix;      // what follows the rewritten node's name ("/Trilu", "/k")
  std::string name;        // what the index gave
};

struct EmitRecord {
  std::vector<FreshNameRequest> fresh;
  // False once the instantiation did what a replay does not redo: a
  // fragment call (it types values mid-way) or a subgraph (its own scopes).
  bool replayable = true;
};

}  // namespace remap
