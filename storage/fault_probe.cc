#include "storage/fault_probe.h"

#include <signal.h>
#include <unistd.h>

#include <charconv>

#include "storage/logger.h"

namespace rokka::storage {
namespace {

using Call = FaultProbeFileSystem::Call;

class ProbedFile final : public File {
 public:
  ProbedFile(FaultProbeFileSystem& fs, std::unique_ptr<File> f) : fs_(fs), f_(std::move(f)) {}
  Status write_at(int64_t offset, std::span<const std::byte> data) override {
    fs_.hit(Call::kWrite);
    return f_->write_at(offset, data);
  }
  Status read_at(int64_t offset, std::span<std::byte> out) override { return f_->read_at(offset, out); }
  Status sync() override {
    fs_.hit(Call::kSync);
    return f_->sync();
  }
  Status truncate(int64_t size) override {
    fs_.hit(Call::kTruncate);
    return f_->truncate(size);
  }
  Status punch_hole(int64_t offset, int64_t len) override {
    fs_.hit(Call::kPunchHole);
    return f_->punch_hole(offset, len);
  }
  Status allocate(int64_t offset, int64_t len) override {
    fs_.hit(Call::kAllocate);
    return f_->allocate(offset, len);
  }
  Status drop_cache(int64_t offset, int64_t len) override { return f_->drop_cache(offset, len); }
  Status set_direct(bool on) override { return f_->set_direct(on); }
  Result<int64_t> size() override { return f_->size(); }
  Result<std::shared_ptr<Mapping>> map(int64_t size, bool writable, bool random) override {
    return f_->map(size, writable, random);
  }

 private:
  FaultProbeFileSystem& fs_;
  std::unique_ptr<File> f_;
};

}  // namespace

Result<std::unique_ptr<FaultProbeFileSystem>> FaultProbeFileSystem::parse(std::string_view spec, FileSystem& inner) {
  static constexpr std::pair<std::string_view, Call> kCalls[] = {
      {"write", Call::kWrite},   {"sync", Call::kSync},     {"sync_dir", Call::kSyncDir},
      {"create", Call::kCreate}, {"rename", Call::kRename}, {"remove", Call::kRemove},
      {"truncate", Call::kTruncate}, {"punch_hole", Call::kPunchHole},
      {"allocate", Call::kAllocate}};
  const size_t colon = spec.find(':');
  int64_t n = 0;
  if (colon != std::string_view::npos) {
    const auto digits = spec.substr(colon + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size()) n = 0;
  }
  for (const auto& [name, call] : kCalls) {
    if (n > 0 && spec.substr(0, colon) == name) return std::make_unique<FaultProbeFileSystem>(inner, call, n);
  }
  return Status::invalid_argument("fault probe spec must be <call>:<n>, n >= 1: " + std::string(spec));
}

void FaultProbeFileSystem::hit(Call kind) {
  if (kind != call_ || remaining_.fetch_sub(1) != 1) return;
  log_error("fault probe fired: killing the process");
  ::kill(::getpid(), SIGKILL);
  ::pause();  // SIGKILL cannot be caught; never reached
}

Result<std::unique_ptr<File>> FaultProbeFileSystem::open(const std::filesystem::path& path, bool create) {
  if (create && !inner_.exists(path)) hit(Call::kCreate);
  auto f = inner_.open(path, create);
  if (!f.ok()) return f.status();
  return std::unique_ptr<File>(std::make_unique<ProbedFile>(*this, std::move(*f)));
}

Status FaultProbeFileSystem::remove(const std::filesystem::path& path) {
  hit(Call::kRemove);
  return inner_.remove(path);
}

Status FaultProbeFileSystem::rename(const std::filesystem::path& from, const std::filesystem::path& to) {
  hit(Call::kRename);
  return inner_.rename(from, to);
}

Status FaultProbeFileSystem::sync_dir(const std::filesystem::path& dir) {
  hit(Call::kSyncDir);
  return inner_.sync_dir(dir);
}

}  // namespace rokka::storage
