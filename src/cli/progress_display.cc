#include "cli/progress_display.h"

#include <fmt/format.h>

namespace remap::cli {

std::string FormatDuration(double seconds) {
  long s = seconds < 0 ? 0 : static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

ProgressDisplay::ProgressDisplay(size_t total, const TerminalStyle& style)
    : total_(total), active_(style.is_terminal() && total > 1), start_(std::chrono::steady_clock::now()) {}

void ProgressDisplay::Update(const ModelResult& r, size_t done) {
  switch (r.outcome) {
    case ModelOutcome::kClean: ++clean_; break;
    case ModelOutcome::kUnmappedLeft: ++left_; break;
    case ModelOutcome::kFailed: ++failed_; break;
    case ModelOutcome::kSkipped: ++skipped_; break;
  }
  if (!active_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
  constexpr int kWidth = 24;
  const int filled = static_cast<int>(kWidth * done / (total_ ? total_ : 1));
  std::string bar = std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(kWidth - filled), '.');
  fmt::print(stderr, "\r\x1b[2K[{}] {}/{}  {:.1f}/s  ETA {}  ok {}  left {}  failed {}  skipped {}", bar, done, total_,
             rate, FormatDuration(eta), clean_, left_, failed_, skipped_);
  std::fflush(stderr);
}

void ProgressDisplay::Finish() {
  if (active_) fmt::print(stderr, "\r\x1b[2K");
}

}  // namespace remap::cli
