// The conversion pipeline as one library call: load -> rewrite -> validate ->
// copy external data -> save, for one model. `rewrite`, `scan`, `check` and
// batch conversion are thin callers; what happened comes back as values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <onnx/onnx_pb.h>

#include "core/status.h"
#include "engine/rewrite_report.h"
#include "rules/rule_set.h"
#include "saver/data_file_placer.h"
#include "saver/durability.h"
#include "saver/weight_storage.h"

namespace remap {

enum class WeightStorage { kAsIs, kExternal, kEmbedded };

enum class PipelineMode {
  kRewrite,  // rewrite, validate, write the result (unless dry_run)
  kScan,     // rewrite in memory only, to see what the rules cover; no validation
  kCheck,    // rewrite and validate in memory; nothing written (a CI gate)
};

// How far a model got: the stage that failed, or kDone.
enum class PipelineStage { kLoad, kRewrite, kValidate, kCopyData, kSave, kDone };

// Stable names for reports: "load", "rewrite", ... "done".
const char* StageName(PipelineStage s);

struct PipelineOptions {
  PipelineMode mode = PipelineMode::kRewrite;
  // Default-domain opset of the result (unset: the model's own).
  std::optional<int> target_opset;
  // Runtime target, by name (see RuleSet::FindTarget).
  std::string target = kDefaultTargetName;
  // kRewrite only: report what would change, write nothing.
  bool dry_run = false;
  // Keep the value_info and output types ONNX shape inference adds while
  // validating (off: the model keeps the types its exporter wrote).
  bool keep_inferred_types = false;
  // kRewrite into another folder: how the output gets the input's external
  // data files (reflink, hard link or in-kernel copy; never read by us).
  DataFileMode data_files = DataFileMode::kAuto;
  // kRewrite: where the output keeps its weights. kAsIs keeps them where the
  // input has them, except that a model past protobuf's 2 GiB limit gets its
  // initializers of `external_threshold` bytes or more moved to `external_file`
  // (the only way it can be saved); kExternal does that for any model;
  // kEmbedded reads external data back in, refusing past the limit.
  WeightStorage weights = WeightStorage::kAsIs;
  uint64_t external_threshold = kDefaultExternalThreshold;
  std::string external_file;  // relative to the output's folder; "": <output file name>.data
  // Validate the whole result (ONNX shape inference and checker over every
  // graph, a second pass over the model). Off: kRewrite checks only the nodes
  // the rewrite added (CheckAddedNodes). kCheck, keep_inferred_types and an
  // opset conversion (it touches every node) always validate in full.
  bool full_validation = false;
  // kRewrite to a file, without full_validation: from how many added nodes
  // their check runs on a thread of its own while the output is written
  // (pipeline/pending_validation.h; 0: always). Below, it runs first, on
  // this thread: a small check costs less than starting a thread for it.
  uint64_t check_apart_from = 2048;
  // Keep the rewritten model in the result (a library caller that wants the
  // proto rather than, or besides, a file).
  bool keep_model = false;
  // False: the model's messages are not freed but left to the process's
  // exit (held where leak checkers see them). For a program that exits once
  // this model is written: freeing a model's messages costs more than half
  // of what parsing them does (11M instructions against 18M for a model of
  // 9k nodes, docs/performance-history.md).
  bool free_model = true;
  // kRewrite to a file: main-graph initializers with at least this many bytes
  // of raw_data are not parsed but copied from the input file to the output
  // (0: never; see saver/spliced_writer.h). Not done for bytes in memory,
  // keep_model or a model_dir of its own: those get the model whole.
  uint64_t splice_min_bytes = 64 * 1024;
  // kRewrite of a file to a file, with no opset conversion, no full
  // validation and no kept model: main-graph nodes that no rewrite can touch
  // (model/deferred_nodes.h) are not parsed but written back as the bytes
  // they are, when they make at least this many bytes (0: never). Not done
  // either when a rule wants a default-domain operator as its producer.
  uint64_t defer_min_bytes = 1024 * 1024;
  // How many replacements the rewrite remembers, to replay them for nodes
  // matched alike (RewriteOptions::memo_entries; 0: none).
  uint64_t memo_entries = 4096;
  // How many unmapped nodes the rewrite matches before it applies those
  // matches (RewriteOptions::match_batch; the output is the same for any).
  uint64_t match_batch = 64;
  // kRewrite: whether the output (the model and the data files it gets) is
  // synced to the disk before it is named. kUnsynced saves the time of the
  // disk taking the bytes (for gigabytes of weights, most of a rewrite's),
  // at the cost of what saver/durability.h says.
  Durability durability = Durability::kSynced;
};

// A model to process: a path, or bytes already in memory. `path` names the
// model in messages, and its folder is where external data is looked up
// (bytes: set `model_dir` for that, or leave both empty when there is none).
struct ModelSource {
  std::string path;
  std::optional<std::string> bytes;
  std::string model_dir;  // defaults to the folder of `path`
};

enum class ModelOutcome {
  kClean,         // nothing unmapped remains
  kUnmappedLeft,  // done, but some unmapped nodes remain
  kFailed,        // a stage failed (see status)
  kSkipped,       // not processed (a batch's --skip-existing found the output)
};

const char* OutcomeName(ModelOutcome o);

struct ModelResult {
  std::string input;   // as given
  std::string output;  // where it was (or would be) written; "" for scan/check
  ModelOutcome outcome = ModelOutcome::kFailed;
  Status status;       // ok, or why `failed_at` failed
  PipelineStage failed_at = PipelineStage::kDone;
  bool has_report = false;  // the rewrite ran: `report` is filled
  RewriteReport report;
  bool written = false;
  uint64_t spliced_bytes = 0;  // raw_data copied from the input file to the output unparsed
  double seconds = 0;  // wall time of this model
  std::optional<onnx::ModelProto> model;  // with keep_model, once rewritten
};

// Runs the pipeline for one model. `output` is the path to write (kRewrite
// without dry_run); ignored otherwise. Never throws; never writes a partial
// file; never modifies the input.
ModelResult RunPipeline(const ModelSource& source, const std::string& output, const RuleSet& rules,
                        const PipelineOptions& options);

}  // namespace remap
