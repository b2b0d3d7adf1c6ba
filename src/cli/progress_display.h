// Progress of a batch on stderr: at a terminal, one line redrawn in place
// (counts, rate, ETA); otherwise nothing here (the caller prints one plain
// line per model instead).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "cli/terminal_style.h"
#include "pipeline/pipeline.h"

namespace remap::cli {

class ProgressDisplay {
 public:
  ProgressDisplay(size_t total, const TerminalStyle& style);
  bool active() const { return active_; }
  // After each model (the batch calls it from one thread at a time).
  void Update(const ModelResult& r, size_t done);
  // Clears the line before the summary is printed.
  void Finish();

 private:
  size_t total_;
  bool active_;
  size_t clean_ = 0, left_ = 0, failed_ = 0, skipped_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// "1:05", "2:03:04": a duration for people.
std::string FormatDuration(double seconds);

}  // namespace remap::cli
